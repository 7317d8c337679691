package fuzz

import (
	"testing"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/internal/oracle"
)

// TestKindOf: the dry run and the create showing one fault are one kind,
// and so are invalid presets of different names; different rules or
// different aspects of the outcome are not.
func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b oracle.Disagreement
		same bool
	}{
		{"dry run and create", oracle.Disagreement{Rules: []rule.ID{rule.R3_2}, Aspect: oracle.Pod, Summary: "the dry-run create made another pod than the model: x"},
			oracle.Disagreement{Rules: []rule.ID{rule.R3_2}, Aspect: oracle.Pod, Summary: "the create made another pod than the model: y"}, true},
		{"two invalid presets", oracle.Disagreement{Rules: []rule.ID{rule.R1_3}, Aspect: oracle.InvalidStored, Summary: "the invalid preset a was stored; the specification refuses it: x"},
			oracle.Disagreement{Rules: []rule.ID{rule.R1_3}, Aspect: oracle.InvalidStored, Summary: "the invalid preset b-2 was stored; the specification refuses it: y"}, true},
		{"other rules", oracle.Disagreement{Rules: []rule.ID{rule.R3_2}, Aspect: oracle.Pod},
			oracle.Disagreement{Rules: []rule.ID{rule.R3_1}, Aspect: oracle.Pod}, false},
		{"stored or refused without a path", oracle.Disagreement{Rules: []rule.ID{rule.R1_3}, Aspect: oracle.InvalidStored},
			oracle.Disagreement{Rules: []rule.ID{rule.R1_3}, Aspect: oracle.InvalidUnnamed}, false},
		{"events missing or wrong", oracle.Disagreement{Rules: []rule.ID{rule.R4_3}, Aspect: oracle.EventsMissing},
			oracle.Disagreement{Rules: []rule.ID{rule.R4_3}, Aspect: oracle.Events}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if same := kindOf(tc.a) == kindOf(tc.b); same != tc.same {
				t.Errorf("kindOf(%+v) == kindOf(%+v): %v, want %v", tc.a, tc.b, same, tc.same)
			}
		})
	}
}
