// Package compare renders the summaries of several runs (the summary.json
// package report writes) as one matrix, the way Gateway API publishes the
// conformance of its implementations: the specification's rules down, the
// implementations across, each cell the rule's outcome for that
// implementation, and below it every failure with the check that failed and
// every difference with the declaration it matches. It writes Markdown (for
// a pull request or a docs page) and one self-contained HTML page.
//
// A rule's outcome is the summary's own (pass, fail, differs, not-claimed,
// not-applicable, unsupported, untested); a rule a summary does not list
// (a summary from an older presetsim) is shown as absent, never as passed.
package compare
