// Package presets is the reference PodPreset implementation: the
// settings.k8s.io/v1alpha1 API types (apis/settings/v1alpha1), the pure merge
// engine (merge), and the admission plug-in (admission). This package itself
// holds the CustomResourceDefinition manifest generated from the types.
package presets
