// Package scenario is the step API: one Scenario per scenario, with its own
// namespaces, what it submitted and the outcome of its last request, over a
// harness.World. The step definitions of package steps are one-liners over
// it. Files by concern: scenario.go (namespaces, ${rv:…}), objects.go
// (create, try, update), pods.go (comparing pods), owned.go and
// workloads.go (controllers' pods, nodes, rollouts), events.go,
// environment.go (what a container sees), and waitwatch.go (waiting on a
// watch rather than a timer).
//
// Isolation: a scenario writes logical namespace names in its YAML (or none,
// meaning "default"); each maps to a fresh physical namespace for that
// scenario, consistently for every object, and messages use logical names.
//
// A step that a backend cannot honour returns a backend.UnsupportedError
// (reported as unsupported, never as passed): the scenario asks the cluster
// for an ability (backend.NodeSimulator, backend.Kubelet) and says why it
// is missing.
package scenario
