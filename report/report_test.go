package report

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run with -update to accept):\n%s", name, path, got)
	}
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
	for name, write := range s.Files() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, name, b.Bytes())
		})
	}
}

// TestHTMLRendersInChromium opens the page in headless Chromium (Debian's
// chromium, which make test installs): the page's script must run to its
// end (it marks the body), no console error may be logged, and the rules
// table must be there. It also saves a screenshot next to the page.
func TestHTMLRendersInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (hack/install-chromium.sh installs Debian's); the HTML is still checked by its golden file")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := Build("reference", "presetsim", "envtest", results).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + filepath.Join(dir, "profile"),
			"--enable-logging=stderr", "--v=0"}
		cmd := exec.CommandContext(ctx, browser, append(append(base, args...), "file://"+page)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	dom, logs := run("--dump-dom")
	if !strings.Contains(dom, `data-rendered="ok"`) {
		t.Errorf("the page's script did not run to its end; DOM:\n%s\nlog:\n%s", dom, logs)
	}
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "CONSOLE") && (strings.Contains(line, "Uncaught") || strings.Contains(line, "Error")) {
			t.Errorf("console error: %s", line)
		}
	}
	if n := strings.Count(dom, `class="rule"`); n != len(Rules) {
		t.Errorf("the rules table has %d rows, want %d", n, len(Rules))
	}
	shot := filepath.Join(dir, "report.png")
	run("--screenshot="+shot, "--window-size=1280,1400")
	if info, err := os.Stat(shot); err != nil || info.Size() == 0 {
		t.Errorf("no screenshot: %v", err)
	}
	if out := os.Getenv("PRESETSIM_SCREENSHOT"); out != "" {
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(out, data, 0o644)
	}
}
