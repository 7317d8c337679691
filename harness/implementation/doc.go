// Package implementation is the seam between the harness and the
// implementation of PodPreset under test. An Implementation installs
// itself on a started cluster (Install), says when a preset it was given
// is in effect (WaitForPreset) and stops (Stop); the harness and the steps
// never ask which kind it is. The kinds, one package each under
// internal/implementation, each with a constructor in package conformance
// and a Registration (its name, its own flags) that the presetsim command
// lists (internal/registry):
//
//   - module: an in-process admission module (the reference, a mutant),
//     served to an API server as a webhook or called in-process offline;
//   - external ("webhook"): someone else's webhook, registered by URL,
//     optionally started as a process;
//   - policy: the presets compiled into MutatingAdmissionPolicies by a
//     controller, no webhook;
//   - installed: an implementation already installed on the cluster.
//
// What only some implementations have is a separate
// small interface: Process (a process whose output and state explain a
// failure) and Preflight (refusing a backend before it starts).
//
// This package also holds what the kinds share: installing the preset CRD,
// registering a webhook for the run's namespaces, and the probe that tells
// when a webhook that cannot say so itself has seen a preset.
package implementation
