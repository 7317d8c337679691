package report

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/internal/report/reporttest"
	"presetsim.dev/presetsim/outcome"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// results are a run with a pass, a failure with a diff credited to the
// failing check's rule, a difference the profile declares, and scenarios
// unsupported, not claimed and not applicable.
var results = []ScenarioResult{
	{Name: "features/simple.feature: A pod with the exclude annotation is never mutated", Tags: []string{"@R3.1", "@R2.4"},
		Duration: 120 * time.Millisecond, Failed: true,
		Failure: "metadata.annotations[podpreset.admission.kubernetes.io/podpreset-allow-database]: want <absent>, got \"16\"\n\n--- want\n+++ got\n@@ -1 +1,2 @@\n metadata:\n+  annotations: <x>",
		Checks: []outcome.CheckReport{
			{Step: `the pod "control" should have the annotations:`, Line: 40, Rules: []rule.ID{rule.R3_7}, Outcome: outcome.Passed},
			{Step: `the pod "website" should be as submitted`, Line: 52, Rules: []rule.ID{rule.R2_4}, Outcome: outcome.Failed, Detail: "metadata.annotations[…]: want <absent>, got \"16\""},
		}},
	{Name: "features/simple.feature: A pod the selector does not match is left alone", Tags: []string{"@R3.1", "@R2.3"}, Duration: 80 * time.Millisecond,
		Checks: []outcome.CheckReport{{Step: `the pod "backend" should be as submitted`, Line: 90, Rules: []rule.ID{rule.R2_3}, Outcome: outcome.Passed}}},
	{Name: "features/conflict.feature: A conflict changes nothing", Tags: []string{"@R4.2", "@R4.3"}, Duration: 90 * time.Millisecond,
		Checks: []outcome.CheckReport{{Step: "the request should succeed", Line: 12, Rules: []rule.ID{rule.R4_2}, Outcome: outcome.Differs, Detail: "profile kubeflow declares conflicts: reject (R4.2)"}}},
	{Name: "features/job.feature: A Job's pods are mutated and complete", Tags: []string{"@R2.6"}, Duration: 5 * time.Millisecond,
		Unsupported: "there is no Job controller to create its pods"},
	{Name: "features/injection.feature: Init containers", Tags: []string{"@R3.2", "@initContainers"}, NotClaimed: "initContainers"},
	{Name: "features/validation.feature: The name is at most 53 characters", Tags: []string{"@R1.6"}, NotApplicable: "the harness's own CRD"},
}

func TestBuild(t *testing.T) {
	s := Build("mutant/ignores-exclude", "presetsim (Kubernetes v1.37.1)", "offline", results)
	if s.Passed {
		t.Error("a run with a failure passed")
	}
	got := map[rule.ID]outcome.Outcome{}
	for _, r := range s.Rules {
		got[r.ID] = r.Outcome
	}
	for id, want := range map[rule.ID]outcome.Outcome{rule.R2_4: outcome.Failed, rule.R2_3: outcome.Passed, rule.R3_7: outcome.Passed, rule.R3_1: outcome.Untested, rule.R2_6: outcome.Unsupported,
		rule.R4_2: outcome.Differs, rule.R4_3: outcome.Untested, rule.R3_2: outcome.NotClaimed, rule.R1_6: outcome.NotApplicable, rule.R4_4: outcome.Untested} {
		if got[id] != want {
			t.Errorf("rule %s: %s, want %s", id, got[id], want)
		}
	}
	if got := s.FailedRules(); !slices.Equal(got, []rule.ID{rule.R2_4}) {
		t.Errorf("failed rules %s, want R2.4 (the failing check's rule, not every tag of the scenario)", got)
	}
	if s.Totals[outcome.Passed] != 1 || s.Totals[outcome.Failed] != 1 || s.Totals[outcome.Differs] != 1 || s.Totals[outcome.Unsupported] != 1 || s.Totals[outcome.NotClaimed] != 1 || s.Totals[outcome.NotApplicable] != 1 {
		t.Errorf("totals %v", s.Totals)
	}
}

// TestBuildKeepsUnknownRules: a rule id the specification does not define
// (a typo in a tag, a check crediting a rule that was renumbered) is listed
// with its scenarios, not dropped from the summary.
func TestBuildKeepsUnknownRules(t *testing.T) {
	s := Build("reference", "presetsim", "offline", []ScenarioResult{
		{Name: "features/x.feature: tagged with a typo", Tags: []string{"@R9.9", "@conflicts"}},
		{Name: "features/x.feature: a check credits an unknown rule", Tags: []string{"@R2.3"},
			Checks: []outcome.CheckReport{{Step: "the request should succeed", Rules: []rule.ID{"R2.33"}, Outcome: outcome.Failed}}, Failed: true},
	})
	byID := map[rule.ID]outcome.RuleReport{}
	for _, r := range s.Rules {
		byID[r.ID] = r
	}
	tests := []struct {
		name string
		id   rule.ID
		want outcome.Outcome
	}{
		{"an unknown tag", "R9.9", outcome.Passed},
		{"an unknown rule of a check", "R2.33", outcome.Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := byID[tt.id]
			if !ok {
				t.Fatalf("rule %s was dropped from the summary", tt.id)
			}
			if r.Outcome != tt.want || !strings.Contains(r.Title, "not a rule of the specification") {
				t.Errorf("rule %s: %s %q, want %s, titled as unknown", tt.id, r.Outcome, r.Title, tt.want)
			}
		})
	}
	if _, ok := byID["conflicts"]; ok {
		t.Error("a capability tag was listed as a rule")
	}
}

func TestWriters(t *testing.T) {
	s := Build("mutant/ignores-exclude", "presetsim (Kubernetes v1.37.1)", "offline", results)
	reporttest.GoldenFiles(t, Files(s), *update)
}

// TestTiming: a run's timing is in the summary, the JUnit root's time and
// the HTML page, a failed clean-up named in each; without timing (the
// verdict ConfigMap's, merged shards) none of them mentions it.
func TestTiming(t *testing.T) {
	for _, tc := range []struct {
		name         string
		timing       *outcome.Timing
		json, html   []string
		junitRootAtt string
	}{
		{"a clean run", outcome.NewTiming(2*time.Second, 1500*time.Millisecond, 250*time.Millisecond, nil),
			[]string{`"suiteSeconds": 1.5`, `"cleanUpSeconds": 0.25`}, []string{"clean-up and stop 0.25 s"}, `time="3.750"`},
		{"a failed clean-up", outcome.NewTiming(time.Second, time.Second, time.Minute, errors.New("not deleted within 1m0s: Pod ns/p (held by finalizers x)")),
			[]string{`"cleanUpError": "not deleted within 1m0s: Pod ns/p (held by finalizers x)"`}, []string{"the clean-up failed: not deleted within 1m0s: Pod ns/p (held by finalizers x)"}, `time="62.000"`},
		{"no timing", nil, nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Build("reference", "presetsim (Kubernetes v1.37.1)", "cluster", results)
			s.Timing = tc.timing
			var js, html, junit bytes.Buffer
			if err := errors.Join(s.WriteJSON(&js), WriteHTML(&html, s), WriteJUnit(&junit, s)); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.json {
				if !strings.Contains(js.String(), want) {
					t.Errorf("summary.json lacks %s", want)
				}
			}
			for _, want := range tc.html {
				if !strings.Contains(html.String(), want) {
					t.Errorf("report.html lacks %s", want)
				}
			}
			root, _, _ := strings.Cut(junit.String(), "<testsuite ")
			if tc.timing == nil {
				if strings.Contains(js.String(), "timing") || strings.Contains(html.String(), `id="timing"`) || strings.Contains(root, "time=") {
					t.Errorf("a run without timing mentions it")
				}
			} else if !strings.Contains(root, tc.junitRootAtt) {
				t.Errorf("junit root %q lacks %s", root, tc.junitRootAtt)
			}
		})
	}
}

// TestHTMLRendersInChromium opens the page in headless Chromium: its script
// must run to its end with no console error, and the rules table must be
// there.
func TestHTMLRendersInChromium(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, Build("reference", "presetsim", "envtest", results)); err != nil {
		t.Fatal(err)
	}
	dom := reporttest.Render(t, b.Bytes())
	if n := strings.Count(dom, `class="rule"`); n != len(rule.All) {
		t.Errorf("the rules table has %d rows, want %d", n, len(rule.All))
	}
}
