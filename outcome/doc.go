// Package outcome is what a check, a scenario, a rule and a run came to,
// shared by the steps, the reports, the differential run, fuzz, the CLI and
// package conformance. An Outcome's value is the name the JSON and YAML
// reports use ("pass", "not-claimed"); Words is how a person reads it
// ("passed", "not claimed"). Scenario and Check are how a scenario went,
// as the steps record it (Of decides its outcome, the one place that
// does); Report is a run's conformance report, the versioned document
// (apiVersion presetsim.dev/v1alpha1, kind ConformanceReport) that
// summary.json holds, and ReadReport reads one back.
//
// A mistake in a feature file is not an outcome: it is found before any
// scenario runs and reported as file:line with exit code 4, credited to no
// rule.
package outcome
