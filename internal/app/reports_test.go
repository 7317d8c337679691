package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/internal/app/cli"
)

// TestRunWritesReports runs a mutant offline with --report-dir: the run
// fails, and every report names the broken rule; the JUnit failure carries
// the pod diff.
func TestRunWritesReports(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), &stdout, &stderr, []string{"run", "--backend", "offline", "--module", "mutant/ignores-exclude",
		"--format", "progress", "--report-dir", dir, "../../features/simple.feature"})
	var exit cli.ExitError
	if !errors.As(err, &exit) || exit.Code == 0 {
		t.Fatalf("run of a mutant: %v, want a non-zero exit\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "failed rules:        R2.4 (1 scenario)") {
		t.Errorf("the summary does not name R2.4:\n%s", stderr.String())
	}
	var s outcome.Report
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Passed || s.Implementation != "mutant/ignores-exclude" || !slices.Equal(s.FailedRules(), []rule.ID{rule.R2_4}) {
		t.Errorf("summary: passed %v, implementation %q, failed rules %v", s.Passed, s.Implementation, s.FailedRules())
	}
	// Written after the clean-up, so that they say what it took.
	if s.Timing == nil || s.Timing.SuiteSeconds <= 0 || s.Timing.CleanUpError != "" {
		t.Errorf("summary timing: %+v, want the suite's time and no clean-up error", s.Timing)
	}
	if c, r := strings.Index(stderr.String(), "clean-up and stop:"), strings.Index(stderr.String(), "reports in "); c < 0 || r < c {
		t.Errorf("the reports were not written after the clean-up:\n%s", stderr.String())
	}
	junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(junit), "<failure") || !strings.Contains(string(junit), "+++ got") {
		t.Errorf("the JUnit failure does not carry the diff:\n%s", junit)
	}
	for _, f := range []string{"summary.yaml", "cucumber.json", "report.html"} {
		if info, err := os.Stat(filepath.Join(dir, f)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestReportCompare runs the reference and a mutant offline with
// --report-dir, then compares the two folders: the matrix shows the
// mutant's broken rule as failed beside the reference's pass, with the
// failing check, in both Markdown and HTML.
func TestReportCompare(t *testing.T) {
	base := t.TempDir()
	for _, module := range []string{"reference", "mutant/ignores-exclude"} {
		var stdout, stderr bytes.Buffer
		dir := filepath.Join(base, strings.ReplaceAll(module, "/", "-"))
		err := Run(context.Background(), &stdout, &stderr, []string{"run", "--backend", "offline", "--module", module,
			"--format", "progress", "--report-dir", dir, "../../features/simple.feature"})
		var exit cli.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("run %s: %v\n%s", module, err, stderr.String())
		}
	}
	out := filepath.Join(base, "compare")
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), &stdout, &stderr, []string{"report", "compare", "--out", out,
		filepath.Join(base, "reference"), filepath.Join(base, "mutant-ignores-exclude")}); err != nil {
		t.Fatalf("report compare: %v\n%s", err, stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(out, "compare.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| reference | mutant/ignores-exclude |",
		"| R2.4 | The exclude annotation opts a pod out | pass | **fail (1 of",
		"- R2.4 fail: ../../features/simple.feature: A pod with the exclude annotation is never mutated: the pod \"website\" should be as submitted → R2.4",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md)
		}
	}
	if html, err := os.ReadFile(filepath.Join(out, "compare.html")); err != nil || !strings.Contains(string(html), `<td class="fail"`) {
		t.Errorf("compare.html shows no failed cell (%v)", err)
	}
	if err := Run(context.Background(), &stdout, &stderr, []string{"report", "compare", filepath.Join(base, "missing")}); err == nil {
		t.Error("comparing a folder without a summary succeeded")
	}
}

// TestShardsMergeToTheWholeRun: the built-in suite run offline in three
// shards against a mutant, the shards' reports merged, is the run of the
// whole suite: the same scenarios with the same outcomes, the same rule
// outcomes and totals, and the merge fails as the run does.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) error {
		var stdout, stderr bytes.Buffer
		return Run(context.Background(), &stdout, &stderr, append([]string{"run", "--backend", "offline", "--module", "mutant/ignores-exclude"}, args...))
	}
	read := func(name string) *outcome.Report {
		var s outcome.Report
		data, err := os.ReadFile(filepath.Join(dir, name, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		for i := range s.Scenarios {
			s.Scenarios[i].Seconds = 0
		}
		return &s
	}
	if err := run("--report-dir", filepath.Join(dir, "whole")); err == nil {
		t.Fatal("the whole run of a mutant passed")
	}
	var shards []string
	for _, i := range []string{"1", "2", "3"} {
		shards = append(shards, filepath.Join(dir, i))
		_ = run("--shard", i+"/3", "--report-dir", shards[len(shards)-1])
	}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), &stdout, &stderr, append([]string{"report", "merge", "--out", filepath.Join(dir, "merged")}, shards...))
	var exit cli.ExitError
	if !errors.As(err, &exit) || exit.Code != 1 {
		t.Errorf("merge of a failed run: %v, want exit status 1\n%s", err, stderr.String())
	}
	whole, merged := read("whole"), read("merged")
	if len(merged.Scenarios) != len(whole.Scenarios) || merged.Totals.String() != whole.Totals.String() {
		t.Errorf("merged %d scenarios (%s), the whole run %d (%s)", len(merged.Scenarios), merged.Totals, len(whole.Scenarios), whole.Totals)
	}
	wantJSON, _ := json.Marshal(whole.Rules)
	gotJSON, _ := json.Marshal(merged.Rules)
	if string(wantJSON) != string(gotJSON) {
		t.Errorf("merged rules differ from the whole run's:\n%s\nwant\n%s", gotJSON, wantJSON)
	}
	for i := range whole.Scenarios {
		if i < len(merged.Scenarios) && (merged.Scenarios[i].Name != whole.Scenarios[i].Name || merged.Scenarios[i].Outcome != whole.Scenarios[i].Outcome) {
			t.Errorf("scenario %d: merged %s %s, whole %s %s", i, merged.Scenarios[i].Name, merged.Scenarios[i].Outcome, whole.Scenarios[i].Name, whole.Scenarios[i].Outcome)
		}
	}
	// What make test-kind compares: report verdict of each.
	verdict := func(name string) string {
		var stdout, stderr bytes.Buffer
		if err := Run(context.Background(), &stdout, &stderr, []string{"report", "verdict", filepath.Join(dir, name)}); err != nil {
			t.Fatalf("report verdict %s: %v\n%s", name, err, stderr.String())
		}
		return stdout.String()
	}
	if w, m := verdict("whole"), verdict("merged"); w != m {
		t.Errorf("report verdict of the merged shards:\n%s\nof the whole run:\n%s", m, w)
	} else if !strings.Contains(w, "scenario fail ") || !strings.Contains(w, "passed: false") {
		t.Errorf("report verdict of a failed run says no failure:\n%s", w)
	}
	if said := stderrOf(t, "--shard", "4/3"); !strings.Contains(said, "1 ≤ I ≤ N") {
		t.Errorf("--shard 4/3 was not refused as a usage error:\n%s", said)
	}
}

// stderrOf runs presetsim run offline with args and returns what it said.
func stderrOf(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	_ = Run(context.Background(), &stdout, &stderr, append([]string{"run", "--backend", "offline"}, args...))
	return stderr.String()
}

// TestCleanUpExit: a run whose scenarios (or fuzz cases) all passed but
// whose clean-up failed exits 1, not 0: it left something behind.
func TestCleanUpExit(t *testing.T) {
	for _, c := range []struct {
		name    string
		stopErr error
		want    int // the exit status; 0 for no error
	}{
		{"clean-up done", nil, 0},
		{"clean-up failed", errors.New(`namespaces "team-x" not deleted`), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := cleanUpExit(c.stopErr)
			var exit cli.ExitError
			switch {
			case c.want == 0 && err != nil:
				t.Errorf("cleanUpExit(%v) = %v, want nil", c.stopErr, err)
			case c.want != 0 && (!errors.As(err, &exit) || exit.Code != c.want):
				t.Errorf("cleanUpExit(%v) = %v, want exit status %d", c.stopErr, err, c.want)
			}
		})
	}
}
