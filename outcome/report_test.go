package outcome

import (
	"bytes"
	"testing"

	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/rule"
)

// TestReadReportRefusesAnotherVersion: a summary of another version is not
// read as this one.
func TestReadReportRefusesAnotherVersion(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"no version", `{"implementation": "x"}`},
		{"another version", `{"apiVersion": "presetsim.dev/v9", "kind": "ConformanceReport"}`},
		{"another kind", `{"apiVersion": "presetsim.dev/v1alpha1", "kind": "Pod"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ReadReport([]byte(tc.data)); err == nil {
				t.Errorf("read %s without error", tc.data)
			}
		})
	}
}

// TestVerdict: a verdict says how many scenarios did not run when some
// did not, so that PASSED never stands alone over scenarios that did not
// run.
func TestVerdict(t *testing.T) {
	tests := []struct {
		name   string
		report Report
		want   string
	}{
		{name: "every scenario ran", report: Report{Passed: true, Totals: Counts{Passed: 5}}, want: "PASSED"},
		{name: "some did not run", report: Report{Passed: true, Totals: Counts{Passed: 68, Unsupported: 26}}, want: "PASSED (26 of 94 scenarios not run)"},
		{name: "failed, some not claimed or not applicable", report: Report{Totals: Counts{Passed: 2, Failed: 1, NotClaimed: 1, NotApplicable: 2, Untested: 7}}, want: "FAILED (3 of 6 scenarios not run)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.report.Verdict(); got != tt.want {
				t.Errorf("Verdict() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWriteYAMLIsTheWholeDocument: the report written a part at a time is
// the text the YAML library writes of it whole.
func TestWriteYAMLIsTheWholeDocument(t *testing.T) {
	tests := []struct {
		name   string
		report Report
	}{
		{name: "empty", report: Report{}},
		{name: "scenarios and rules", report: Report{
			Implementation: "reference", Backend: "offline", Passed: true, Totals: Counts{Passed: 2, Unsupported: 1},
			Rules: []RuleReport{{Rule: rule.Rule{ID: rule.R2_4, Title: "Exclusion"}, Outcome: Passed, Scenarios: 2}},
			Scenarios: []ScenarioReport{
				{Feature: "features/a.feature", Name: "one: yes", Scenario: "features/a.feature: one: yes", Outcome: Passed, Tags: []string{"@R2.4"}, Rules: []rule.ID{rule.R2_4}},
				{Feature: "features/a.feature", Name: "two\nlines", Outcome: Unsupported, Reason: "no nodes", Checks: []CheckReport{{Outcome: Passed}}},
			},
			Interrupted: "exit status 130",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bytes.Buffer
			if err := tt.report.WriteYAML(&got); err != nil {
				t.Fatal(err)
			}
			want, err := yaml.Marshal(&tt.report)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("written a part at a time:\n%s\nwhole:\n%s", got.String(), want)
			}
		})
	}
}
