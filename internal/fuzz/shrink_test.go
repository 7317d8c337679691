package fuzz

import (
	"slices"
	"testing"

	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/rule"
)

// TestStill: a smaller case shows what was found when the hypothesis that
// explained it explains the smaller case too, or, when none did, when a
// disagreement shares a rule with it; then the hypothesis that explains
// the smaller case, if one does, names its rule first.
func TestStill(t *testing.T) {
	others, unreported := hypothesis(t, "takes presets of other namespaces"), hypothesis(t, "reports no conflict")
	pod := oracle.Disagreement{Rules: []rule.ID{rule.R3_1, rule.R3_2}, Aspect: oracle.Pod, Summary: "the create made another pod than the model"}
	explained := pod
	explained.Explain(unreported)
	for _, tc := range []struct {
		name        string
		found       oracle.Disagreement
		ds          []oracle.Disagreement
		explainedBy []*oracle.Hypothesis
		want        []rule.ID // nil: not shown
		asIf        string
	}{
		{"the same hypothesis", explained, []oracle.Disagreement{pod}, []*oracle.Hypothesis{others, unreported}, []rule.ID{rule.R4_3, rule.R3_1, rule.R3_2}, unreported.Name},
		{"another hypothesis only", explained, []oracle.Disagreement{pod}, []*oracle.Hypothesis{others}, nil, ""},
		{"a rule in common, unexplained", pod, []oracle.Disagreement{pod}, nil, []rule.ID{rule.R3_1, rule.R3_2}, ""},
		{"a rule in common, explained alone", pod, []oracle.Disagreement{pod}, []*oracle.Hypothesis{others}, []rule.ID{rule.R2_2, rule.R3_1, rule.R3_2}, others.Name},
		{"no rule in common", pod, []oracle.Disagreement{{Rules: []rule.ID{rule.R4_3}, Aspect: oracle.Events}}, []*oracle.Hypothesis{others}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := still(tc.found, tc.ds, tc.explainedBy)
			switch {
			case tc.want == nil && d != nil:
				t.Fatalf("shown by %+v, want not", d)
			case tc.want == nil:
			case d == nil:
				t.Fatalf("not shown, want rules %v", tc.want)
			case !slices.Equal(d.Rules, tc.want) || d.AsIf != tc.asIf:
				t.Errorf("rules %v as if %q, want %v as if %q", d.Rules, d.AsIf, tc.want, tc.asIf)
			}
		})
	}
	if len(pod.Rules) != 2 || pod.AsIf != "" {
		t.Errorf("the disagreement given was changed: %+v", pod)
	}
}
