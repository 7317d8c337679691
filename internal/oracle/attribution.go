package oracle

import (
	"slices"
	"strings"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/compare/valuediff"
)

// Attribute returns the rules a check's outcome is credited to: the first
// non-empty of narrowed ∩ tags, candidates ∩ tags, the scenario's rule tags,
// and candidates. Tags narrow what a step could establish to what the
// scenario is about; a scenario with no rule tags is judged by what its
// steps check.
func Attribute(narrowed, candidates []rule.ID, tags []string) []rule.ID {
	scenario := rule.Tags(tags)
	for _, set := range [][]rule.ID{intersect(narrowed, scenario), intersect(candidates, scenario), scenario, candidates} {
		if len(set) > 0 {
			return set
		}
	}
	return nil
}

// intersect keeps the items of a that are in b, in a's order.
func intersect(a, b []rule.ID) []rule.ID {
	var out []rule.ID
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
func DifferenceRules(err error, appliedPrefix string) []rule.ID {
	var out []rule.ID
	add := func(rules ...rule.ID) {
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
			add(rule.Selection...)
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
func rulesOfDifference(d valuediff.Difference, appliedPrefix string) []rule.ID {
	switch {
	case strings.HasPrefix(d.Path, "metadata.annotations["+appliedPrefix):
		if d.Want == valuediff.Absent {
			// A preset applied that should not have been.
			return rule.Selection
		}
		return []rule.ID{rule.R3_7}
	case strings.HasPrefix(d.Path, "metadata."):
		// The pod's own labels or annotations lost or changed.
		return []rule.ID{rule.R3_7, rule.R4_4}
	case d.Order():
		return []rule.ID{rule.R3_3, rule.R3_6}
	case d.Got == valuediff.Absent:
		// Something expected is missing: not injected, or the pod's own removed.
		return []rule.ID{rule.R3_1, rule.R3_2, rule.R3_5, rule.R3_6, rule.R4_4, rule.R2_3}
	case d.Want == valuediff.Absent:
		// Something unexpected was added: a duplicate, or a preset that
		// should not apply.
		return slices.Concat([]rule.ID{rule.R3_4, rule.R3_5, rule.R3_8}, rule.Selection)
	}
	// A value rewritten.
	return []rule.ID{rule.R4_4, rule.R3_5, rule.R4_1, rule.R3_6}
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
