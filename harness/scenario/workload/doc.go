// Package workload holds the steps on workloads and the nodes they run on:
// the simulated node count (undone at the scenario's Cleanup), scaling,
// rollouts and the rollout controller's restarts, deleting a pod, the pods a
// workload owns once its controller has settled, their creation order, one
// pod per node for a DaemonSet, and a Job that completes (on a real kubelet,
// by telling the printenv image to finish).
package workload
