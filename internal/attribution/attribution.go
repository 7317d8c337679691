package attribution

import (
	"slices"
	"strings"

	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/compare/valuediff"
)

// Rule groups, as the step table uses them.
var (
	// Selection decide whether a pod is mutated at all.
	Selection = []string{"R2.1", "R2.2", "R2.3", "R2.4", "R2.5", "R2.6", "R4.2"}
	// Injection decide what a mutated pod looks like.
	Injection = []string{"R3.1", "R3.2", "R3.3", "R3.4", "R3.5", "R3.6", "R3.7", "R3.8", "R4.1"}
	// Validation decide which presets the API accepts.
	Validation = []string{"R1.1", "R1.2", "R1.3", "R1.4", "R1.5", "R1.6", "R1.7", "R1.8"}
	// PodContent are what a pod comparison can show broken.
	PodContent = slices.Concat(Selection, Injection, []string{"R4.4"})
)

// RuleTags returns the rule ids among tags ("@R2.4" → "R2.4").
func RuleTags(tags []string) []string {
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

// Attribute returns the rules a check's outcome is credited to: the first
// non-empty of narrowed ∩ tags, candidates ∩ tags, the scenario's rule tags,
// and candidates. Tags narrow what a step could establish to what the
// scenario is about; a scenario with no rule tags is judged by what its
// steps check.
func Attribute(narrowed, candidates, tags []string) []string {
	scenario := RuleTags(tags)
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

// DifferenceRules narrows a failed pod comparison: the rules each
// difference points at, for every *compare.Mismatch the error holds. The
// annotation domain is the implementation's (profile.AnnotationPrefix). An
// error that holds no comparison (the pod does not exist, say) is not
// narrowed.
func DifferenceRules(err error, appliedPrefix string) []string {
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
			add(Selection...)
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
func nothingApplied(diffs []valuediff.Difference, appliedPrefix string) bool {
	var annotations, items bool
	for _, d := range diffs {
		switch {
		case d.Got != valuediff.Absent || d.Order():
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
func rulesOfDifference(d valuediff.Difference, appliedPrefix string) []string {
	switch {
	case strings.HasPrefix(d.Path, "metadata.annotations["+appliedPrefix):
		if d.Want == valuediff.Absent {
			// A preset applied that should not have been.
			return Selection
		}
		return []string{"R3.7"}
	case strings.HasPrefix(d.Path, "metadata."):
		// The pod's own labels or annotations lost or changed.
		return []string{"R3.7", "R4.4"}
	case d.Order():
		return []string{"R3.3", "R3.6"}
	case d.Got == valuediff.Absent:
		// Something expected is missing: not injected, or the pod's own removed.
		return []string{"R3.1", "R3.2", "R3.5", "R3.6", "R4.4", "R2.3"}
	case d.Want == valuediff.Absent:
		// Something unexpected was added: a duplicate, or a preset that
		// should not apply.
		return slices.Concat([]string{"R3.4", "R3.5", "R3.8"}, Selection)
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
