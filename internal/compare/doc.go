// Package compare decides whether a stored pod is the pod a scenario
// expected, and explains the answer when it is not.
//
// [Pods] implements the harness's "should be" rule: metadata.labels must
// match exactly, every expected annotation must be present and equal, no
// unexpected annotation may sit under the implementation's preset prefix,
// and spec must match exactly, list order included, once the items other
// built-in admission plug-ins add on their own have been removed from both
// sides (see [Normalize]).
//
// A mismatch lists every difference by path, naming list items by their key
// where the list has one (spec.containers[website].env[DB_PORT].value), and
// carries a unified diff of both pods rendered as YAML. The recursive
// differ is package valuediff's, which other checks use for other objects
// (a ReplicaSet that should be as submitted, an object that should match).
//
// [LostItems] and [LostFields] say what a pod lost of what it was
// submitted with (R4.4): the oracle reads them against the pod a scenario
// or a case submitted, the scenario against a workload's pod template.
package compare
