// Package podcheck holds the checks on pods of the step API: a pod as
// expected ("the pod … should be", compared as harness.md "Comparing pods"
// says: the expected pod defaulted by a dry-run create, the fields a
// workload controller sets left out unless expected), a dry-run pod, a pod
// that must not exist, a pod's annotations, and any object as submitted.
// ComparePod is the same comparison outside a scenario, for the
// differential run.
package podcheck
