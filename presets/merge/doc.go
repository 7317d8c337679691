// Package merge is the pure PodPreset merge engine: given a pod and the
// PodPresets of its namespace it decides which presets apply (Select) and
// computes the mutated pod, or the conflicts that prevent any mutation (Apply).
// It does no I/O and never mutates its arguments, so the admission plug-in,
// the webhook and the tests can all share it. Select and Apply keep no state;
// a Cache, which admission holds, remembers what they derive from each stored
// preset (its parsed selector and defaulted items) so that it is not derived
// again for every pod.
//
// The rules it implements are R3 and R4 of spec/podpreset.md:
//
//   - Volumes are added to the pod spec; env, envFrom and volumeMounts are added
//     to every container and every init container. Ephemeral containers are not
//     touched (R3.1, R3.2).
//   - Existing items keep their position and injected items are appended:
//     presets in the order given (Select sorts them by name, in byte order),
//     each preset's items in their own order (R3.3, R3.6).
//   - Items are keyed as follows (R3.5): env by name (case-sensitive), volumes
//     by name, volumeMounts by name and, separately, by mountPath, and envFrom
//     by the tuple (prefix, configMapRef.name, secretRef.name).
//   - An injected item that is identical (equality.Semantic.DeepEqual) to an
//     existing item is skipped silently (R3.4). An injected item that shares a
//     key with an existing item but is not identical to one is a conflict
//     (R4.1); a volumeMount can conflict twice, once by name and once by
//     mountPath, and both are reported. Preset items are first given the
//     core/v1 defaults the API server gives the pod's items (Defaulted), so
//     that secret: {secretName: x} in a preset equals the pod's defaulted
//     item (defaultMode 420); the defaulted form is also what is injected.
//   - "Existing" means whatever the list holds when the item is injected: the
//     pod's own items, the items of earlier presets and the earlier items of
//     the same preset. This is what Kubernetes 1.19 did, as it updated its
//     lookup maps while appending. A conflicting item is never added, so it
//     does not take part in later comparisons.
//   - Conflicts are all-or-nothing (R4.2): if any preset conflicts, no preset
//     is applied and the returned pod equals the input. Checking continues
//     through every preset so that the report is complete; identical conflicts
//     are reported once. Messages renders them per preset, which is the text
//     of the PodPresetConflict event and admission warning (R4.3).
//   - Each applied preset records itself in the annotation
//     podpreset.admission.kubernetes.io/podpreset-<name> with its
//     resourceVersion as value, even when it added nothing new (R3.7).
//   - Because identical items are skipped and annotations are overwritten with
//     the same value, applying the same presets to an already mutated pod
//     changes nothing (R3.8).
//   - A list that receives nothing is left as it was, so a nil list stays nil
//     and the pod's JSON form is unchanged when nothing is injected.
//
// Performance: a pod costs, per preset of its namespace, one selector
// evaluation (with a Cache, or for a plain matchLabels selector) and, per
// injected item, one copy per container and one key look-up per list that
// started with items of its own; lists that start empty all end up alike, so
// only the first of each kind is looked up in and the others repeat what it
// did. Key look-ups compare hashes, in a slice for short lists and through a
// map for long ones; items are compared in full only when they share a key.
// The merged lists are allocated once per kind of list for the whole pod;
// docs/performance.md has the figures.
//
// Aliasing: the pod Apply returns shares no memory with its arguments or with
// a Cache. Callers may change it, or keep it (the offline backend stores it)
// while the presets stay in an informer's cache. Lists of different
// containers may be windows of one array, each capped at its own length, so
// appending to one never writes into another.
//
// What the engine does not do: it does not list presets (R2.2, the caller
// passes the presets of the pod's namespace), and it does not decide whether a
// request is to be mutated at all (R2.1, R2.4, R2.5); those guards live in the
// admission plug-in. ExcludeAnnotation is defined here only so that all
// annotation names are in one place.
package merge
