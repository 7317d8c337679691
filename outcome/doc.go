// Package outcome is what a check, a scenario or a rule came to, as one
// type shared by the steps, the reports, the differential run, fuzz and the
// CLI. An Outcome's value is the name the JSON and YAML reports use
// ("pass", "not-claimed"); Words is how a person reads it ("passed", "not
// claimed").
//
// A mistake in a feature file is not an outcome: it is found before any
// scenario runs and reported as file:line with exit code 4, credited to no
// rule.
package outcome
