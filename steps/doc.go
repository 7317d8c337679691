// Package steps holds the godog step definitions of the public step language
// (harness.md, "The core step language"). Each step is a thin call into a
// harness.Scenario; per-scenario state lives in the context, never in globals.
//
// DocStrings hold YAML. So that bad YAML is reported at its place in the
// feature file, the package indexes the feature files itself and passes each
// DocString's file and first line to the decoder.
package steps
