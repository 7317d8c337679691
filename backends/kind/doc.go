// Package kind is the backend of a kind cluster made from the node image of
// hack/kind/build-node-image.sh (make kind-image): a real kube-apiserver,
// etcd, controller manager, scheduler and kubelet with containerd, in a
// Docker container. An in-process module is served as a webhook on this
// host's address on the kind network (WebhookHost); pods run our printenv
// image (served under every image name by a registry mirror of the run, see
// package imageserver), so the environment steps also compare what the
// container printed with what the harness computes (Kubelet). See package
// kindcluster for what the cluster lacks (DNS, Service routing).
package kind
