// Package merge is the reference PodPreset merge: given a pod and the
// PodPresets of its namespace it decides which presets apply (Select) and
// computes the mutated pod, or the conflicts that prevent any mutation
// (Apply). It does no I/O, keeps no state and never mutates its arguments,
// so the admission plug-in, the preview and the tests all share it.
//
// It is written to be read next to docs/specification.md; each rule is marked
// with its id where it is implemented:
//
//   - R2.3, R3.6: Select keeps the presets whose selector matches the pod's
//     labels and sorts them by name, in byte order.
//   - R3.1, R3.2: Apply adds volumes to the pod spec and env, envFrom and
//     volumeMounts to every init container and container, in pod order.
//     Ephemeral containers are not touched.
//   - R3.3: existing items keep their position; injected items are
//     appended, presets in the order given, each preset's items in their
//     own order.
//   - R3.5 (keys.go): env by name (case-sensitive), volumes by name,
//     volumeMounts by name and, separately, by mountPath, envFrom by the
//     tuple (prefix, configMapRef.name, secretRef.name).
//   - R3.4, R4.1 (inject): an injected item identical
//     (equality.Semantic.DeepEqual) to an item that shares one of its keys is
//     skipped; one that shares a key with an item but is identical to none is
//     a conflict, on every key it shares. "Existing" is whatever the list
//     holds when the item comes: the pod's own items, those of earlier
//     presets and the earlier items of the same preset, as Kubernetes 1.19
//     compared against its lists while appending. A conflicting item is
//     never added, so nothing the pod had is rewritten (R4.4).
//   - R4.2: if any preset conflicts, no preset is applied and the returned
//     pod equals the input. Checking goes on through every preset, so that
//     the report is complete; identical conflicts are reported once.
//     presets/conflict renders them per preset: the text of the PodPresetConflict
//     event and of the admission warning (R4.3).
//   - R3.7: each applied preset records itself in the annotation
//     podpreset.admission.kubernetes.io/podpreset-<name>, its
//     resourceVersion as value, even when it added nothing new.
//   - R3.8 follows: applying the same presets to a mutated pod skips every
//     item as identical and rewrites the annotations with the same values.
//
// Preset items are compared and injected with the defaults the API server
// gives the same items of a pod (package defaults), so that
// secret: {secretName: x} in a preset equals the pod's defaulted item
// (defaultMode 420).
//
// A list that receives nothing is left as it was, so a nil list stays nil
// and the pod's JSON form is unchanged when nothing is injected.
//
// What the merge does not do: it does not list presets (R2.2, the caller
// passes the presets of the pod's namespace), and it does not decide whether
// a request is to be mutated at all (R2.1, R2.4, R2.5); those guards live in
// the admission plug-in. ExcludeAnnotation is defined here only so that all
// annotation names are in one place.
//
// The merge is plain on purpose: a look-up is a scan of the list, items are
// compared by reflection and every preset is defaulted (copied) for every
// pod. docs/performance.md has what that costs (tens of microseconds per pod,
// where the API server's admission takes milliseconds).
package merge
