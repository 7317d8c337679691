// Package steps holds the godog step definitions of the public step language
// (harness.md, "The core step language"). Each step is a thin call into a
// harness.Scenario; per-scenario state lives in the context, never in globals.
//
// A step the backend cannot honour (harness.UnsupportedError) is reported as
// skipped with its reason, and a scenario tagged with a capability the
// profile does not claim is not run; neither passes nor fails. Scenarios run
// DefaultConcurrency at a time, those tagged @serial alone, and every step's
// context is bounded by harness.Timeouts.Step.
//
// DocStrings hold YAML. So that bad YAML is reported at its place in the
// feature file, the package indexes the feature files itself and passes each
// DocString's file and first line to the decoder.
package steps
