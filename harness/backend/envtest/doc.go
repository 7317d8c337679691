// Package envtest is the default backend: a real etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler built from the Go module proxy
// (hack/build-tools.sh, `make tools`), with simulated nodes (package nodes).
// An in-process module is served to it as a webhook on 127.0.0.1.
//
// The package never builds the binaries: FindBinaries says "run make tools"
// (ErrBinariesNotBuilt) and the CLI offers to build them (BuildBinaries).
package envtest
