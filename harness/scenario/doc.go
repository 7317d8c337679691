// Package scenario is the core of the step API: one Scenario per scenario,
// with its own namespaces, what it submitted and the outcome of its last
// request, over a harness.World. Files by concern: scenario.go (namespaces,
// ${rv:…}, cleanup), objects.go (create, try, update), admissions.go (the
// pods the steps submitted, each with the presets of its namespace, for the
// model's check), pods.go (reading and listing pods), waitwatch.go (waiting
// on a watch rather than a timer, and the settle window) and podorder.go
// (the order pods were created in).
//
// The checks and actions by subject live in sub-packages, each a Steps type
// that embeds the Scenario: podcheck (pods as expected or as submitted),
// objectcheck (objects of any kind, deleting them), requestcheck (the
// outcome of a request: refused, warnings), workload (nodes, scaling,
// rollouts, owned pods, Jobs), eventcheck (events) and environment (what a
// container sees). The step
// definitions of package steps are one-liners over them.
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
