// Package explain says, for a pod and PodPresets, what each preset does to
// the pod and why, in the specification's terms: applied (the items it
// added and those it skipped as identical); not applied because it lives in
// another namespace (R2.2), the pod is excluded (R2.4) or a mirror pod
// (R2.5), or its selector does not match (R2.3, naming the requirement that
// fails and what the pod has); or held back by a conflict (R4.1, with both
// items, or R4.2, naming the preset that conflicts). It reads the reference
// (packages merge and admission) and decides nothing of its own, so an
// explanation can never disagree with what the reference admits.
package explain
