// Package v1alpha1 holds the settings.k8s.io/v1alpha1 PodPreset API types
// (rules R1.1–R1.8 of the specification), delivered as a CustomResourceDefinition.
//
// The core types (EnvVar, EnvFromSource, Volume, VolumeMount) are Kubernetes'
// own, so the generated CRD schema carries their full OpenAPI description and the
// API server validates a preset's volume exactly as it validates a pod's.
//
// +kubebuilder:object:generate=true
// +groupName=settings.k8s.io
package v1alpha1
