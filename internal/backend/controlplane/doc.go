// Package controlplane starts the envtest backend's control plane: a real etcd
// and kube-apiserver (through controller-runtime's envtest) plus a real
// kube-controller-manager and kube-scheduler, so that workload controllers
// create pods and pods are bound to nodes (package nodes simulates those), all
// from binaries built from source by hack/build-tools.sh.
//
// Every process started here is stopped by Stop. envtest puts etcd and the API
// server in their own process groups, so a terminal's Ctrl-C does not reach
// them: callers must call Stop on signals too (see package internal/interrupt).
package controlplane
