// Package nodes simulates the nodes of the envtest backend, so that the real
// controllers make progress: Node objects that are Ready, and a "kubelet" that
// moves the pods the real scheduler binds to them through their lifecycle.
//
// The kubelet is the smallest that controllers need: a bound pod becomes
// Running and Ready (containers running, init containers completed, a pod IP);
// a pod of a Job then completes (Succeeded); a pod being deleted is removed at
// once, as a kubelet does after its containers stop. Before a pod starts, each
// container's environment is made as the kubelet makes it (package
// containerenv): when a ConfigMap, Secret or key it needs without optional is
// missing, the pod stays Pending with the container waiting for the reason
// CreateContainerConfigError and the kubelet's message, and is tried again
// every RetryConfigAfter until it can start. Nothing runs: images are never
// pulled, probes never run, volumes are never mounted.
package nodes
