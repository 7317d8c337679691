// Package envtest is the default backend: a real etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler built from the Go module proxy
// (hack/build-tools.sh, `make tools`), with simulated nodes (package nodes).
// An in-process module is served to it as a webhook on 127.0.0.1.
//
// FindBinaries looks for the binaries (PRESETSIM_BIN_DIR,
// KUBEBUILDER_ASSETS, the user cache, the repository's cache) and says how
// to get them (ErrBinariesNotBuilt). `presetsim tools install` builds them
// anywhere (Install, from the versions pinned in hack/tools, embedded); the
// registered backend (Options.Build) builds them in a checkout, as `make
// tools` does (BuildBinaries), when a run finds none.
package envtest
