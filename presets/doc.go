// Package presets is the reference PodPreset implementation. Its packages:
// the settings.k8s.io/v1alpha1 API types (apis/settings/v1alpha1) and
// their CRD (config/crd); the merge, which reads like the specification
// (merge), with the API server's defaults it compares items in (defaults);
// the admission plug-in on the k8s.io/apiserver contract (admission); the
// model every verdict is computed from, the specification with a
// profile's declarations as options (model); what each preset does to a
// pod and why (explain); the same behaviour compiled into
// MutatingAdmissionPolicies (policy); and an opt-in controller that rolls
// new presets out to running workloads (rollout). This package itself
// holds the CustomResourceDefinition generated from the types (CRD).
package presets
