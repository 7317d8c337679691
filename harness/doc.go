// Package harness starts the world a run of PodPreset scenarios shares: a
// backend where objects live and the implementation under test installed on
// it, with the run's namespaces. It is what another godog suite needs to
// use the step language (package steps): choose, Start, run, Stop.
//
// The caller chooses the backend and the implementation as values
// (Options.Backend: envtest.New, offline.New, ... of the packages under
// backends/; package conformance has the implementations' constructors), so
// the harness links no backend it is not given; the presetsim command
// chooses by name through internal/registry. Start is the one start
// sequence:
//
//  1. the backend (the seam is package backend; one package per backend
//     under backends/: envtest, offline, kind, cluster) starts a cluster;
//  2. the implementation under test (the seam is package implementation;
//     one package per kind under internal/implementation: an in-process
//     module, an external webhook, the policy, one already installed)
//     installs itself for the run's namespaces, whatever the backend can
//     do for it;
//  3. a readiness probe creates a probe preset and dry-runs a pod until it
//     comes back mutated, and explains in the API server's words when it
//     does not (a webhook that refuses connections, a process that exited,
//     answers the API server cannot use).
//
// On a backend with an API server, a World then keeps a few namespaces
// made ahead and warmed up (namespaces.go: PooledNamespace), as the first
// pod of a brand-new namespace costs an API server up to 100 ms more.
//
// A World holds one backend cluster and one implementation; Stop stops
// making namespaces ahead, then the implementation, then the backend, and records the processes a run starts
// (internal/procs) so that the next run stops what a killed one left.
//
// Scenarios (internal/scenario) reach the backend only through
// backend.Objects and its abilities, and the implementation only through
// World.WaitForPreset: steps never ask which backend or implementation
// runs. A profile (package profile) describes how the implementation
// differs from the canonical PodPreset; PresetObject translates what
// features write.
//
// Defaulting for comparisons: the probe also creates the run's defaulting
// namespace, which no implementation is registered for; expected objects
// are dry-run there so that they get exactly the backend's defaults.
package harness
