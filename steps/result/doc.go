// Package result is how a scenario went: its outcome (passed, failed,
// differs as declared, unsupported, not claimed, not applicable), and the
// checks its steps made, each credited to rules of the specification
// (docs/specification.md). Reports, profiles' tests and the differential run
// read it; package steps writes it.
package result
