// Package cluster is the backend of an existing cluster, reached with a
// kubeconfig — or, run from a pod of the cluster with no kubeconfig, with
// the pod's service account (deploy/conformance) — where the implementation
// under test is already installed.
// The harness then creates nothing but namespaces it names and labels for
// the run (backend.RunLabel) and namespaced objects in them; it refuses any
// cluster-scoped create. At Stop it deletes what it created, object by
// object, in the foreground (but kinds that own nothing: pods, presets,
// ConfigMaps, Secrets, events), bounded, and any pod left in its namespaces,
// then the namespaces themselves; what it could not delete is Stop's error.
package cluster
