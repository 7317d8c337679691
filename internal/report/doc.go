// Package report turns a run's scenario results into the files CI and
// people read: a conformance summary (JSON and YAML: every rule of the
// specification with its outcome, every scenario with its outcome and
// failure text), JUnit XML whose failures carry the whole message (the pod
// diff included), and one self-contained HTML page (rules × outcome, with
// expandable failures). Cucumber JSON comes from godog's own formatter.
//
// A rule's outcome comes from the scenarios tagged with its id (@R2.4):
// "fail" when one of them failed, "pass" when at least one passed and none
// failed, "not-claimed" when the rest needed a capability the profile does
// not claim, "unsupported" when the backend could run none of them, and
// "untested" when no scenario is tagged with it.
package report
