// Package scenario is the step API: one Scenario per scenario, with its own
// namespaces, what it submitted and the outcome of its last request, over a
// harness.World, and every action and check the step language has, as
// methods. The step definitions of package steps are one-liners over them.
//
// One room, a file per concern:
//   - scenario.go: namespaces, ${rv:…}, clean-up;
//   - objects.go: create, try, update; admissions.go: the pods the steps
//     submitted, each with the presets of its namespace, for the model's
//     check; pods.go: reading and listing pods; podorder.go: the order pods
//     were created in; waitwatch.go: waiting on a watch rather than a timer,
//     and the settle window;
//   - podchecks.go: a pod as expected (compared as harness.md "Comparing
//     pods" says: the expected pod defaulted by a dry-run create, once per
//     distinct pod in a scenario — defaults.go —, the fields a workload
//     controller sets left out unless expected — controllerfields.go), a
//     dry-run pod, a pod that must not exist, a pod's annotations, any
//     object as submitted; ComparePod is the same comparison outside a
//     scenario, for the differential run;
//   - objectchecks.go: objects of any kind match a partial object (maps as
//     subsets, lists by their merge keys where the kind's Go type has them,
//     by position otherwise), do not exist, are deleted; a Secret's data is
//     masked in every difference;
//   - request.go: the outcome of the last "try" step: it succeeded, was
//     rejected with a message, got (or did not get) an admission warning;
//   - events.go: an object has an event (waited for), or none with a reason
//     for the settle window;
//   - workloads.go, owned.go, finish.go: simulated nodes (undone at
//     Cleanup), scaling, rollouts and the rollout controller's restarts,
//     deleting a pod, the pods a workload owns once its controller has
//     settled, their creation order, one pod per node for a DaemonSet, a Job
//     that completes (on a real kubelet, by telling the printenv image to
//     finish);
//   - environment.go: what a container sees, as the kubelet would give it
//     (computed by containerenv, checked against what a real kubelet printed
//     where there is one), variables it must not see, a container that fails
//     to start, a pod that becomes ready. Values from Secrets are masked
//     unless the run shows secrets.
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
