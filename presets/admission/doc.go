// Package admission is the PodPreset admission plug-in on the k8s.io/apiserver
// admission contract (admission.MutationInterface).
//
// It mutates CREATE requests for core pods (R2.1) with the presets of the
// request's namespace (R2.2) whose selector matches the pod (R2.3), unless the
// pod carries the exclude annotation (R2.4) or is a mirror pod (R2.5). The merge
// itself is the pure engine in package merge; this package adds the request
// guard, reads presets through a Lister, and reports conflicts (R4.3) as a
// Warning event with reason PodPresetConflict and as an admission warning.
// Server-side dry-run requests are mutated the same way but record no events.
//
// Unlike in-tree plug-ins, which see internal types, this plug-in works on
// k8s.io/api/core/v1 Pods: it is served to API servers as a mutating webhook,
// where objects arrive in their versioned form.
//
// Conflict events are attached to the pod when it has a name; a pod created
// with generateName (as controllers do) has no name yet at admission time, so
// the event goes to its controller owner (e.g. the ReplicaSet). A pod with
// neither gets only the admission warning. The pod has no UID yet either, and
// `kubectl describe` selects events by UID: UIDResolvingRecorder records a pod's
// event once the pod is stored, with its UID.
//
// Invoke runs any mutating plug-in (this one, a mutant, someone's module) on
// one request as an API server does; the webhook handler, the offline
// backend and the preview all admit through it.
package admission
