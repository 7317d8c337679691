package steps

import (
	"errors"
	"slices"
	"strings"

	"presetsim.dev/presetsim/harness/compare"
)

// Outcomes of one check (a step), as Check.Outcome.
const (
	CheckPassed     = "passed"
	CheckFailed     = "failed"
	CheckNotClaimed = "not claimed"
	CheckDeclared   = "differs as declared"
)

// Check is what one step established, or failed to: the step, the rules it
// was credited to, and how it went. Setup steps (Given/When) appear only
// when they fail, since they check nothing when they succeed.
type Check struct {
	// Step is the step's text, e.g. `the pod "website" should be as submitted`.
	Step string
	// Line is the step's line in its feature file.
	Line int
	// Rules are the rule ids (R4.2, without "@") the outcome is credited to.
	Rules []string
	// Outcome is CheckPassed, CheckFailed, CheckNotClaimed or CheckDeclared.
	Outcome string
	// Err is the failure, for CheckFailed and CheckDeclared.
	Err error
	// Reason says why a check was not claimed or differs as declared.
	Reason string
}

// checkSpec is what a step checks: the rules of podpreset.md its check can
// establish and the capability it needs. A setup step checks nothing but
// can still fail: it is blamed on its rules (when the scenario's tags hold
// them) or on the scenario's rules, and never credited.
type checkSpec struct {
	rules []string
	// setup marks a step that prepares rather than checks.
	setup bool
	// needs is the profile capability the check needs ("events"); a profile
	// that does not claim it has the check skipped as not claimed.
	needs string
	// shows is the kind of check (shows.content, …): a profile's declared
	// difference can excuse only the checks that show it.
	shows string
	// narrow, when set, narrows a failure to the rules it points at (a pod
	// comparison's differences, say); prefix is the implementation's
	// annotation domain.
	narrow func(err error, prefix string) []string
}

// shows names the kinds of checks, as profile.Difference.Checks lists them.
var shows = struct{ admitted, rejected, content, events, warnings string }{
	admitted: "admitted", rejected: "rejected", content: "content", events: "events", warnings: "warnings",
}

// setup is a step that prepares the scenario; on failure it is blamed on
// rules (within the scenario's tags).
func setup(kind string, rules ...string) checkSpec {
	return checkSpec{rules: rules, setup: true, shows: kind, narrow: denied}
}

// denied narrows a refused request: a pod the implementation denied at
// admission breaks R4.2's "admission still succeeds" (the only rule under
// which the specification's implementation refuses nothing).
func denied(err error, _ string) []string {
	if err != nil && strings.Contains(err.Error(), "denied the request") {
		return []string{"R4.2"}
	}
	return nil
}

// check is a step that checks rules, in a way of the kind shows.
func check(kind string, rules ...string) checkSpec { return checkSpec{rules: rules, shows: kind} }

// podCheck compares a pod with an expectation; a failure is narrowed by its
// differences.
func podCheck(rules ...string) checkSpec {
	return checkSpec{rules: slices.Concat(podContentRules, rules), shows: shows.content, narrow: differenceRules}
}

// needs makes a check depend on a capability.
func needs(capability string, c checkSpec) checkSpec {
	c.needs = capability
	return c
}

// rejectionCheck is "the request should be rejected with a message
// containing": a request that succeeded breaks the validation rule the
// scenario is about; a rejection with another message breaks R1.8.
func rejectionCheck() checkSpec {
	return checkSpec{rules: validationRules, shows: shows.rejected, narrow: func(err error, _ string) []string {
		if errors.Is(err, errAccepted) {
			return slices.DeleteFunc(slices.Clone(validationRules), func(r string) bool { return r == "R1.8" })
		}
		return []string{"R1.8"}
	}}
}

// errAccepted is the failure of a request that should have been rejected.
var errAccepted = errors.New("the request succeeded, want it rejected")

// Rule groups, as the step table uses them.
var (
	// selectionRules decide whether a pod is mutated at all.
	selectionRules = []string{"R2.1", "R2.2", "R2.3", "R2.4", "R2.5", "R2.6", "R4.2"}
	// injectionRules decide what a mutated pod looks like.
	injectionRules = []string{"R3.1", "R3.2", "R3.3", "R3.4", "R3.5", "R3.6", "R3.7", "R3.8", "R4.1"}
	// validationRules decide which presets the API accepts.
	validationRules = []string{"R1.1", "R1.2", "R1.3", "R1.4", "R1.5", "R1.6", "R1.7", "R1.8"}
	// podContentRules are what a pod comparison can show broken.
	podContentRules = slices.Concat(selectionRules, injectionRules, []string{"R4.4"})
)

// ruleTags returns the rule ids among tags ("@R2.4" → "R2.4").
func ruleTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		if id, ok := strings.CutPrefix(t, "@"); ok && isRuleID(id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// isRuleID reports whether s looks like a rule id: "R", digits, ".", digits.
func isRuleID(s string) bool {
	major, minor, ok := strings.Cut(strings.TrimPrefix(s, "R"), ".")
	return strings.HasPrefix(s, "R") && ok && digits(major) && digits(minor)
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// attribute returns the rules a check's outcome is credited to: the first
// non-empty of narrowed ∩ tags, candidates ∩ tags, the scenario's rule tags,
// and candidates. Tags narrow what a step could establish to what the
// scenario is about; a scenario with no rule tags is judged by what its
// steps check.
func attribute(narrowed, candidates, tags []string) []string {
	scenario := ruleTags(tags)
	for _, set := range [][]string{intersect(narrowed, scenario), intersect(candidates, scenario), scenario, candidates} {
		if len(set) > 0 {
			return set
		}
	}
	return nil
}

// intersect keeps the items of a that are in b, in a's order.
func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// differenceRules narrows a failed pod comparison: the rules each
// difference points at, for every *compare.Mismatch the error holds. The
// annotation domain is the implementation's (profile.AnnotationPrefix). An
// error that holds no comparison (the pod does not exist, say) is not
// narrowed.
func differenceRules(err error, appliedPrefix string) []string {
	var out []string
	add := func(rules ...string) {
		for _, r := range rules {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	for _, m := range mismatches(err) {
		if nothingApplied(m.Differences, appliedPrefix) {
			// Not one preset's annotation nor its items: the pod was not
			// mutated at all, which is about which pods are mutated.
			add(selectionRules...)
			continue
		}
		for _, d := range m.Differences {
			add(rulesOfDifference(d, appliedPrefix)...)
		}
	}
	return out
}

// nothingApplied reports whether the differences say that the pod was left
// unmutated: applied annotations and items missing, nothing else.
func nothingApplied(diffs []compare.Difference, appliedPrefix string) bool {
	var annotations, items bool
	for _, d := range diffs {
		switch {
		case d.Got != compare.Absent || d.Order():
			return false
		case strings.HasPrefix(d.Path, "metadata.annotations["+appliedPrefix):
			annotations = true
		case strings.HasPrefix(d.Path, "spec."):
			items = true
		default:
			return false
		}
	}
	return annotations && items
}

// rulesOfDifference is what one difference between the expected and the
// actual pod says about the implementation.
func rulesOfDifference(d compare.Difference, appliedPrefix string) []string {
	switch {
	case strings.HasPrefix(d.Path, "metadata.annotations["+appliedPrefix):
		if d.Want == compare.Absent {
			// A preset applied that should not have been.
			return selectionRules
		}
		return []string{"R3.7"}
	case strings.HasPrefix(d.Path, "metadata."):
		// The pod's own labels or annotations lost or changed.
		return []string{"R3.7", "R4.4"}
	case d.Order():
		return []string{"R3.3", "R3.6"}
	case d.Got == compare.Absent:
		// Something expected is missing: not injected, or the pod's own removed.
		return []string{"R3.1", "R3.2", "R3.5", "R3.6", "R4.4", "R2.3"}
	case d.Want == compare.Absent:
		// Something unexpected was added: a duplicate, or a preset that
		// should not apply.
		return slices.Concat([]string{"R3.4", "R3.5", "R3.8"}, selectionRules)
	}
	// A value rewritten.
	return []string{"R4.4", "R3.5", "R4.1", "R3.6"}
}

// mismatches returns every *compare.Mismatch in err's tree.
func mismatches(err error) []*compare.Mismatch {
	if err == nil {
		return nil
	}
	var out []*compare.Mismatch
	if m, ok := err.(*compare.Mismatch); ok && m != nil {
		out = append(out, m)
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, mismatches(e)...)
		}
	case interface{ Unwrap() error }:
		out = append(out, mismatches(u.Unwrap())...)
	}
	return out
}
