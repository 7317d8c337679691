package app

import (
	"errors"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// TestPrintOutcomes: by default a run prints what did not pass and why
// each scenario did not run, once per reason; --quiet nothing but what the
// caller prints after; --verbose every scenario.
func TestPrintOutcomes(t *testing.T) {
	scenarios := []outcome.Scenario{
		{Scenario: "a.feature: passes", Duration: time.Millisecond},
		{Scenario: "a.feature: passes too", Duration: time.Millisecond},
		{Scenario: "b.feature: fails", Failed: true, Checks: []outcome.Check{{Step: `the pod "p" should be:`, Line: 7, Rules: []rule.ID{rule.R2_4}, Outcome: outcome.Failed, Err: errors.New("want <absent>")}}},
		{Scenario: "c.feature: needs nodes", Unsupported: "there are no nodes"},
		{Scenario: "c.feature: needs nodes too", Unsupported: "there are no nodes"},
		{Scenario: "d.feature: validation", NotApplicable: "R1 would test the harness"},
	}
	for _, tc := range []struct {
		name        string
		level       level
		want, never []string
	}{
		{"default", defaultLevel,
			[]string{"FAIL", "b.feature: fails", "→ R2.4", "want <absent>", "2 scenarios not run on the offline backend: there are no nodes", "1 scenario not applicable: R1 would test the harness", "--verbose"},
			[]string{"a.feature: passes", "c.feature: needs nodes"}},
		{"quiet", quietLevel, nil, []string{"b.feature", "not run", "not applicable"}},
		{"verbose", verboseLevel,
			[]string{"ok ", "a.feature: passes", "a.feature: passes too", "FAIL", "c.feature: needs nodes too", "d.feature: validation"},
			[]string{"2 scenarios not run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			counts := printOutcomes(&b, scenarios, "offline", tc.level)
			if counts[outcome.Passed] != 2 || counts[outcome.Failed] != 1 || counts[outcome.Unsupported] != 2 || counts[outcome.NotApplicable] != 1 {
				t.Errorf("counts %v", counts)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
			for _, n := range tc.never {
				if strings.Contains(b.String(), n) {
					t.Errorf("has %q:\n%s", n, b.String())
				}
			}
		})
	}
}
