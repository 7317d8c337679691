// Package app is the presetsim command line: flag parsing and output only;
// the work is done by the packages of harness, steps and internal/fuzz.
// What is tested and where is chosen by the registries (registry.Choice):
// no command names a backend or an implementation kind, except tools (the
// envtest control plane's binaries) and differential, which compares the
// offline backend with envtest; up offers the backends that make a
// cluster of their own.
// Each command is a cobra command: run, differential, fuzz, apply, up,
// rules, features and tools here; bench, serve, policy, watch (run
// --watch) and live (audit, explain) are packages of their own, and cli
// holds what the commands share (exit statuses, usage and feature-file
// errors, Prepare, reading manifests).
package app
