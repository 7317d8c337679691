// Package kindcluster creates, reuses and deletes the kind cluster of the
// harness's kind backend, through the sigs.k8s.io/kind library and the
// node image that hack/kind/build-node-image.sh builds (make kind-image).
//
// That image holds everything a single-node cluster needs, since no image
// can be pulled here: kubelet, kubeadm and the control-plane images built
// from the pinned Kubernetes, our own pause image, Debian's containerd, runc
// and CNI plugins, and a static bridge CNI configuration. The cluster is
// therefore created without kind's default CNI (kindnetd) or kube-proxy,
// and kubeadm skips its CoreDNS addon (there is no CoreDNS image): pods get
// addresses and run, Services get cluster IPs and environment variables, but
// there is no in-cluster DNS and no Service routing. The kubelet is told
// not to refuse a cgroup v1 host (failCgroupV1: false), as this project's
// machines are.
//
// Before anything else, Create checks that a Docker engine answers and that
// the node image exists, and says in one line what is missing.
package kindcluster
