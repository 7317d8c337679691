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
// neither gets only the admission warning. (The pod has no UID yet either;
// the recorder the harness hands over, module.UIDResolvingRecorder, records
// a pod's event once the pod is stored, with its UID.)
//
// The plug-in registers as the API server's do (Register, Factory) and is
// initialised by a PluginInitializer: WantsPodPresetLister,
// WantsEventRecorder, and SetReadyFunc; until ready it refuses, as in-tree
// plug-ins do.
package admission
