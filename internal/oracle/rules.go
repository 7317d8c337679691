package oracle

import (
	"encoding/json"
	"slices"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	"presetsim.dev/presetsim/rule"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/compare/valuediff"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
)

// podRules names the rules a pod that differs from the model's breaks,
// from what the differences show read with the model's explanation (which
// presets match, which the model applies, why a request is left alone):
//
//   - something the pod had is gone or rewritten: R4.4, whatever else
//     (an item, or a field an implementation built on older API types does
//     not know and drops);
//   - a preset the model does not apply was applied: R2.2 (another
//     namespace's), R2.4 (excluded pod), R2.5 (mirror pod), R4.2 (a
//     conflict: only some applied) or R4.1 (a conflict: all applied, the
//     conflict unseen), else R2.3 (its selector does not match);
//   - a preset the model applies was not: R2.1 (only in the dry run: the
//     real create got every one), R2.4 (none, and the pod carries the
//     exclude annotation with a value that does not exclude),
//     R2.6 (a pod without a name), R3.4/R3.5 (a conflict the
//     implementation saw that the model does not), else R2.3; when only
//     the last preset was applied, R3.6 as well. R1.3 (what the empty
//     selector selects) is named only by the variant that explains the
//     whole outcome ("does not select presets with the empty selector"):
//     that only such presets are missing is no proof, as an implementation
//     that applies the wrong one of two presets shows;
//   - only annotations differ (the items are the model's): R3.7, and R4.4
//     when one of the pod's own is lost or rewritten;
//   - every preset's annotation right but the items not, or an annotation's
//     value wrong: R3.7;
//   - items in another order: R3.3 (injected before the pod's own) or
//     R3.6 (presets in another order);
//   - items missing: R3.1 (volumes), R3.2 (in some containers or some
//     kinds of item); items added: R3.4 (a duplicate) or R4.1.
func podRules(w *harness.World, obs Observed, want model.Outcome, got Request, dryRun bool, m *compare.Mismatch) []rule.ID {
	var rules []rule.ID
	add := func(r ...rule.ID) {
		for _, x := range r {
			if !slices.Contains(rules, x) {
				rules = append(rules, x)
			}
		}
	}
	submitted := defaults.Pod(obs.Pod)
	submitted.Annotations = w.Profile.Annotations(submitted.Annotations)
	if len(compare.LostItems(submitted, got.Pod)) > 0 || len(compare.LostFields(obs.Pod, got.Pod)) > 0 {
		add(rule.R4_4)
	}
	if onlyAnnotations(m.Differences) {
		// The items are the model's; only annotations differ.
		add(itemRules(w, m.Differences, want)...)
		return rules
	}
	applied := appliedNames(w, got)
	extra, missing := difference(applied, want.Applied), difference(want.Applied, applied)
	for _, name := range extra {
		switch {
		case !slices.Contains(want.Matching, name) && isOther(obs, name):
			add(rule.R2_2)
		case want.Skipped == "excluded":
			add(rule.R2_4)
		case want.Skipped == "mirror":
			add(rule.R2_5)
		case slices.Contains(want.Matching, name) && len(want.Conflicts) > 0 && len(applied) < len(want.Matching):
			add(rule.R4_2)
		case slices.Contains(want.Matching, name) && len(want.Conflicts) > 0:
			add(rule.R4_1)
		default:
			add(rule.R2_3)
		}
	}
	if len(missing) > 0 {
		switch {
		case len(applied) == 0 && dryRun && slices.Equal(appliedNames(w, obs.Create), want.Applied):
			add(rule.R2_1) // the real create got them; only the dry run did not
		case len(applied) == 0 && hasExclude(obs):
			add(rule.R2_4) // an exclude annotation whose value does not exclude
		case len(applied) == 0 && got.Pod.GenerateName != "" && obs.Pod.Name == "":
			add(rule.R2_6, rule.R2_3)
		case foreign(obs, got.Warnings):
			add(rule.R2_2) // a conflict with another namespace's preset
		case conflictWarned(got.Warnings):
			add(rule.R3_4, rule.R3_5, rule.R4_1)
		}
		if len(applied) == 1 && applied[0] == want.Applied[len(want.Applied)-1] {
			add(rule.R3_6)
		}
		if len(rules) == 0 {
			add(rule.R2_3)
		}
	}
	if len(extra) == 0 && len(missing) == 0 {
		add(itemRules(w, m.Differences, want)...)
	}
	if len(rules) == 0 {
		add(rule.R3_5, rule.R4_1) // the items differ in a way none of the above names
	}
	return rules
}

// itemRules reads the differences of a pod to which the right presets
// were applied.
func itemRules(w *harness.World, diffs []valuediff.Difference, want model.Outcome) []rule.ID {
	var rules []rule.ID
	annotation := "metadata.annotations[" + w.Profile.AppliedPrefix()
	for _, d := range diffs {
		switch {
		case strings.HasPrefix(d.Path, annotation):
			rules = append(rules, rule.R3_7)
		case strings.HasPrefix(d.Path, "metadata.annotations["):
			rules = append(rules, rule.R3_7, rule.R4_4) // the pod's own annotation, replaced or lost
		case d.Order():
			if len(want.Applied) > 1 {
				rules = append(rules, rule.R3_6, rule.R3_3)
			} else {
				rules = append(rules, rule.R3_3)
			}
		case d.Got == valuediff.Absent && strings.HasPrefix(d.Path, "spec.volumes"):
			rules = append(rules, rule.R3_1)
		case d.Got == valuediff.Absent:
			rules = append(rules, rule.R3_2)
		case d.Want == valuediff.Absent:
			rules = append(rules, rule.R3_4, rule.R4_1)
		case strings.HasPrefix(d.Path, "metadata."):
			rules = append(rules, rule.R4_4)
		default:
			rules = append(rules, rule.R3_5, rule.R4_1)
		}
	}
	if prefixDropped(diffs) {
		rules = append(rules, rule.R3_5) // envFrom entries keyed without their prefix
	}
	if slices.Contains(rules, rule.R3_2) || slices.Contains(rules, rule.R3_1) {
		// Missing items: the cause, not a missing annotation, is the rule.
		rules = slices.DeleteFunc(rules, func(r rule.ID) bool { return r == rule.R3_7 })
	}
	slices.Sort(rules)
	return slices.Compact(rules)
}

// appliedNames are the presets whose applied annotation the pod carries
// and did not carry when submitted.
func appliedNames(w *harness.World, got Request) []string {
	if got.Pod == nil {
		return nil
	}
	prefix := w.Profile.AppliedPrefix()
	var out []string
	for k := range got.Pod.Annotations {
		if name, ok := strings.CutPrefix(k, prefix); ok && name != "" && k != w.Profile.Spec.Annotations.Exclude {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// difference is what a holds that b does not.
func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func isOther(obs Observed, name string) bool {
	for _, p := range obs.Presets {
		if p.Name == name {
			return false
		}
	}
	return true
}

func emptySelector(obs Observed, name string) bool {
	for _, p := range obs.Presets {
		if p.Name == name {
			return len(p.Spec.Selector.MatchLabels) == 0 && len(p.Spec.Selector.MatchExpressions) == 0
		}
	}
	return false
}

// conflictWarned reports whether a warning speaks of a conflict. It reads
// the implementation's own text, whose wording the specification does not
// fix for another implementation: any mention of a conflict (saysConflict).
func conflictWarned(warnings []string) bool {
	return slices.ContainsFunc(warnings, saysConflict)
}

// saysConflict reports whether an implementation's own text — a warning,
// a denial — speaks of a conflict. This and the presets that conflict
// messages name (conflict.Mentions) are all the oracle reads of message
// text; what the specification's messages must say is compared whole with
// the model's.
func saysConflict(text string) bool {
	return strings.Contains(strings.ToLower(text), "conflict")
}

// onlyAnnotations reports whether every difference is in the pod's
// annotations.
func onlyAnnotations(diffs []valuediff.Difference) bool {
	for _, d := range diffs {
		if !strings.HasPrefix(d.Path, "metadata.annotations[") {
			return false
		}
	}
	return len(diffs) > 0
}

// hasExclude reports whether the submitted pod carries the exclude
// annotation, with any value.
func hasExclude(obs Observed) bool {
	_, ok := obs.Pod.Annotations[merge.ExcludeAnnotation]
	return ok
}

// foreign reports whether warnings or event messages name a preset that
// is not among the case's presets in the pod's namespace: one from
// another namespace was considered (R2.2).
func foreign(obs Observed, texts []string) bool {
	return slices.ContainsFunc(conflict.Mentions(texts), func(name string) bool { return isOther(obs, name) })
}

// unselectedMention is the rule broken when texts (warnings, conflict
// events) report a conflict of a preset of the pod's namespace that the
// model does not select for the pod: the implementation selected it. R2.4
// when the pod is excluded, R2.5 when it is a mirror pod, else R2.3; ""
// when every preset the texts name is selected (or of another namespace:
// foreign).
func unselectedMention(obs Observed, texts []string, want model.Outcome) rule.ID {
	if !slices.ContainsFunc(conflict.Mentions(texts), func(name string) bool {
		return !isOther(obs, name) && !slices.Contains(want.Matching, name)
	}) {
		return ""
	}
	switch want.Skipped {
	case "excluded":
		return rule.R2_4
	case "mirror":
		return rule.R2_5
	}
	return rule.R2_3
}

// prefixDropped reports whether an envFrom entry the model expects is
// missing where one with the same source and another prefix is present:
// the entries were keyed without their prefix (R3.5).
func prefixDropped(diffs []valuediff.Difference) bool {
	var missing, extra []corev1.EnvFromSource
	read := func(text string) (corev1.EnvFromSource, bool) {
		var e corev1.EnvFromSource
		return e, json.Unmarshal([]byte(text), &e) == nil
	}
	for _, d := range diffs {
		if !strings.Contains(d.Path, ".envFrom[") {
			continue
		}
		if e, ok := read(d.Want); ok && d.Got == valuediff.Absent {
			missing = append(missing, e)
		}
		if e, ok := read(d.Got); ok && d.Want == valuediff.Absent {
			extra = append(extra, e)
		}
	}
	for _, m := range missing {
		for _, x := range extra {
			same := m
			same.Prefix = x.Prefix
			if m.Prefix != x.Prefix && equality.Semantic.DeepEqual(same, x) {
				return true
			}
		}
	}
	return false
}
