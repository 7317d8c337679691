package report

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/report/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// results are a run with a pass, a failure with a diff credited to the
// failing check's rule, a difference the profile declares, and scenarios
// unsupported, not claimed and not applicable.
var results = []ScenarioResult{
	{Name: "features/simple.feature: A pod with the exclude annotation is never mutated", Tags: []string{"@R3.1", "@R2.4"},
		Duration: 120 * time.Millisecond, Failed: true,
		Failure: "metadata.annotations[podpreset.admission.kubernetes.io/podpreset-allow-database]: want <absent>, got \"16\"\n\n--- want\n+++ got\n@@ -1 +1,2 @@\n metadata:\n+  annotations: <x>",
		Checks: []Check{
			{Step: `the pod "control" should have the annotations:`, Line: 40, Rules: []string{"R3.7"}, Outcome: Pass},
			{Step: `the pod "website" should be as submitted`, Line: 52, Rules: []string{"R2.4"}, Outcome: Fail, Detail: "metadata.annotations[…]: want <absent>, got \"16\""},
		}},
	{Name: "features/simple.feature: A pod the selector does not match is left alone", Tags: []string{"@R3.1", "@R2.3"}, Duration: 80 * time.Millisecond,
		Checks: []Check{{Step: `the pod "backend" should be as submitted`, Line: 90, Rules: []string{"R2.3"}, Outcome: Pass}}},
	{Name: "features/conflict.feature: A conflict changes nothing", Tags: []string{"@R4.2", "@R4.3"}, Duration: 90 * time.Millisecond,
		Checks: []Check{{Step: "the request should succeed", Line: 12, Rules: []string{"R4.2"}, Outcome: Differs, Detail: "profile kubeflow declares conflicts: reject (R4.2)"}}},
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
	outcome := map[string]string{}
	for _, r := range s.Rules {
		outcome[r.ID] = r.Outcome
	}
	for id, want := range map[string]string{"R2.4": Fail, "R2.3": Pass, "R3.7": Pass, "R3.1": Untested, "R2.6": Unsupported,
		"R4.2": Differs, "R4.3": Untested, "R3.2": NotClaimed, "R1.6": NotApplicable, "R4.4": Untested} {
		if outcome[id] != want {
			t.Errorf("rule %s: %s, want %s", id, outcome[id], want)
		}
	}
	if got := strings.Join(s.FailedRules(), ","); got != "R2.4" {
		t.Errorf("failed rules %s, want R2.4 (the failing check's rule, not every tag of the scenario)", got)
	}
	if s.Totals[Pass] != 1 || s.Totals[Fail] != 1 || s.Totals[Differs] != 1 || s.Totals[Unsupported] != 1 || s.Totals[NotClaimed] != 1 || s.Totals[NotApplicable] != 1 {
		t.Errorf("totals %v", s.Totals)
	}
}

func TestWriters(t *testing.T) {
	s := Build("mutant/ignores-exclude", "presetsim (Kubernetes v1.37.1)", "offline", results)
	reporttest.GoldenFiles(t, s.Files(), *update)
}

// TestHTMLRendersInChromium opens the page in headless Chromium: its script
// must run to its end with no console error, and the rules table must be
// there.
func TestHTMLRendersInChromium(t *testing.T) {
	var b bytes.Buffer
	if err := Build("reference", "presetsim", "envtest", results).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	dom := reporttest.Render(t, b.Bytes())
	if n := strings.Count(dom, `class="rule"`); n != len(Rules) {
		t.Errorf("the rules table has %d rows, want %d", n, len(Rules))
	}
}
