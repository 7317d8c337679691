// Package steps holds the godog step definitions of the public step language
// (harness.md, "The core step language"). Each step is a thin call into a
// scenario.Scenario; per-scenario state lives in the context, never in globals.
//
// Every step says what it checks (checkSpec, in the step table): the rules
// of the specification its check can establish, the capability it needs, and
// the kind of evidence it is. Its outcome is recorded as a Check credited
// to those rules, narrowed by the scenario's rule tags and, for a failed
// pod comparison, by the paths of the differences (internal/oracle);
// how each scenario went is a result.Scenario. Reports
// credit rules by checks, so a failure is blamed on the failing check's
// rules, not on every tag of its scenario.
//
// Verdicts come from the model (presets/model): every pod a step submits is
// recorded with the presets of its namespace (scenario.Admissions) and
// compared with what the model makes of them under the profile. A failure
// is credited to the rules the model's differences show as well; a check
// that fails while every pod came out as the declared model makes it stops
// its scenario as "differs as declared", naming the declarations that
// explain it; and a scenario whose steps all held still fails when a pod
// came out otherwise than the model makes it.
//
// A step the backend cannot honour (backend.UnsupportedError) is reported as
// skipped with its reason; a scenario tagged @rollout, which the profile
// does not claim, is not run, and a check that needs an unclaimed capability
// is skipped as not claimed while the scenario goes on; R1 scenarios that
// would judge the harness's own CRD are not applicable. None of these
// passes or fails. Scenarios run DefaultConcurrency at a time,
// those tagged @serial alone, and every step's context is bounded by
// harness.Timeouts.Step.
//
// DocStrings hold YAML. So that bad YAML is reported at its place in the
// feature file, package featureloc indexes the feature files and each
// DocString's file and first line are passed to the decoder.
package steps
