// Package harness runs the world a PodPreset scenario needs: a backend where
// objects live, the admission module under test, the PodPreset CRD, and
// per-scenario namespaces. There are two backends:
//
//   - envtest (the default): real etcd, kube-apiserver, kube-controller-manager
//     and kube-scheduler with simulated nodes; the module is served to the API
//     server as a TLS webhook.
//   - offline: an in-memory store with the module called in-process, for
//     speed. It honours what it can (admission, dry runs, events, a
//     ReplicaSet controller) and reports the rest as unsupported, with the
//     reason (an UnsupportedError), never as passed: no validation, no other
//     controllers, no nodes. See offlineCluster for exactly what it does.
//   - cluster: an existing cluster (a kubeconfig) where the implementation is
//     already installed; the harness touches only its own labelled
//     namespaces and deletes them at the end (see Cluster).
//
// The module under test is an in-process one (Options.Module), or someone
// else's webhook (Options.External, ExternalModule); a profile
// (Options.Profile, package profile) describes how it differs from the
// canonical PodPreset, and the harness translates what features write.
//
// Scenarios reach a backend only through the small cluster interface.
//
// A World is started once per run and shared by every scenario; a Scenario
// holds one scenario's state (its namespaces, what it submitted, the outcome
// of its last request). The step definitions in package steps are a thin
// layer over Scenario.
//
// Isolation: a scenario writes logical namespace names in its YAML (or none,
// meaning "default"); each maps to a fresh physical namespace for that
// scenario, consistently for every object, and reports use logical names.
//
// Defaulting for comparisons: an expected object is passed through a
// server-side dry-run create in the run's defaulting namespace, which no
// admission module under test is registered for, so the expected object gets
// exactly the backend's defaults (on envtest the API server's) and nothing
// from the module.
package harness
