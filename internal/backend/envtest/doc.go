// Package envtest is the default backend: a real etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler built from the Go module proxy
// (hack/build-tools.sh, `make tools`), with simulated nodes (package nodes).
// An in-process module is served to it as a webhook on 127.0.0.1.
//
// The backend never builds the binaries: FindBinaries looks for them
// (PRESETSIM_BIN_DIR, KUBEBUILDER_ASSETS, the user cache, the repository's
// cache) and says how to get them (ErrBinariesNotBuilt); the CLI builds
// them when asked (Install, `presetsim tools install`, from the versions
// pinned in hack/tools, embedded) or, in the repository, as `make tools`
// does (BuildBinaries).
package envtest
