// Package harness runs the world a PodPreset scenario needs: a control plane
// (the envtest backend: real etcd, kube-apiserver and kube-controller-manager),
// the admission module under test served to it as a TLS webhook, the PodPreset
// CRD, and per-scenario namespaces.
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
// exactly the API server's defaults and nothing from the module.
package harness
