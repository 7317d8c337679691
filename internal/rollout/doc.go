// Package rollout is an opt-in controller that rolls new presets out to
// running workloads, as the PodPreset proposal's first constraint asks
// ("controllers ... should recreate their pods when a new Pod Injection Policy
// is added that would affect them") and no Kubernetes release ever did.
//
// When a PodPreset is created or deleted in a namespace labelled
// EnableLabel="true", every Deployment, StatefulSet and DaemonSet there whose
// pod template labels the preset's selector matches gets a rolling restart:
// its pod template is stamped with CauseAnnotation, naming the preset and
// what happened to it, so its controller replaces the pods and admission
// mutates the new ones. Workloads the preset does not select are never
// touched; nothing happens in namespaces without the label, nor for presets
// that existed before the controller started.
package rollout
