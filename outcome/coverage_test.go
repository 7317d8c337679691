package outcome

import (
	"strings"
	"testing"

	"presetsim.dev/presetsim/rule"
)

// TestCoverage: a rule is checked when a check credited to it ran and none
// was skipped as not claimed and no declaration weakened it; the others
// are listed with why, and each requirement is met or not by them.
func TestCoverage(t *testing.T) {
	r := &Report{
		Rules: []RuleReport{
			{Rule: rule.Rule{ID: rule.R2_1}, Outcome: Passed},
			{Rule: rule.Rule{ID: rule.R2_2}, Outcome: Failed},
			{Rule: rule.Rule{ID: rule.R4_2}, Outcome: Differs},
			{Rule: rule.Rule{ID: rule.R4_3}, Outcome: Passed}, // its warning check not claimed
			{Rule: rule.Rule{ID: rule.R6_1}, Outcome: Passed}, // declared away
			{Rule: rule.Rule{ID: rule.R2_5}, Outcome: Untested},
			{Rule: rule.Rule{ID: rule.R2_6}, Outcome: Unsupported},
			{Rule: rule.Rule{ID: rule.R3_2}, Outcome: NotClaimed},
			{Rule: rule.Rule{ID: rule.R1_6}, Outcome: NotApplicable},
		},
		Scenarios: []ScenarioReport{{Checks: []CheckReport{
			{Rules: []rule.ID{rule.R4_3}, Outcome: Passed},
			{Rules: []rule.ID{rule.R4_3}, Outcome: NotClaimed},
		}}},
	}
	c := CoverageOf(r, map[rule.ID]string{rule.R6_1: "propagation: 1h"})
	if got := rule.Join(c.Checked, " "); got != "R2.1 R2.2 R4.2" {
		t.Errorf("checked %s, want R2.1 R2.2 R4.2", got)
	}
	want := "3 of 9 rules; not checked: 1 not selected (R2.5), 1 unsupported on the backend (R2.6), 1 declared away (R6.1: propagation: 1h), " +
		"1 partly not claimed (R4.3: 1 checks not claimed), 1 not claimed (R3.2), 1 not applicable (R1.6)"
	if got := c.Line(); got != want {
		t.Errorf("line\n  %s\nwant\n  %s", got, want)
	}
	for _, tc := range []struct {
		require string
		unmet   string // a part of what Unmet says; "" when met
	}{
		{"all", "6 rules not checked"},
		{"claimed", "3 rules not checked: 1 not selected (R2.5), 1 unsupported on the backend (R2.6), 1 declared away (R6.1"},
		{"R2.1,R4.2", ""},
		{"R2.1, @R4.3", "1 rules not checked: 1 partly not claimed (R4.3"},
		{"30%", ""},
		{"40%", "3 of 9 rules checked, 40% required"},
	} {
		t.Run(tc.require, func(t *testing.T) {
			req, err := ParseRequirement(tc.require)
			if err != nil {
				t.Fatal(err)
			}
			got := req.Unmet(c)
			if (got == "") != (tc.unmet == "") || !strings.Contains(got, tc.unmet) {
				t.Errorf("Unmet = %q, want %q", got, tc.unmet)
			}
		})
	}
	if every := CoverageOf(&Report{Rules: r.Rules[:2]}, nil); every.Line() != "2 of 2 rules, every one" {
		t.Errorf("line %q", every.Line())
	}
}

// TestParseRequirementErrors: what --require does not read is said.
func TestParseRequirementErrors(t *testing.T) {
	for _, s := range []string{"some", "R9.9", "0%", "120%", "x%", "R2.1,"} {
		if _, err := ParseRequirement(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}
