package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"presetsim.dev/presetsim/report"
)

// TestRunWritesReports runs a mutant offline with --report-dir: the run
// fails, and every report names the broken rule; the JUnit failure carries
// the pod diff.
func TestRunWritesReports(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), &stdout, &stderr, []string{"run", "--backend", "offline", "--module", "mutant/ignores-exclude",
		"--format", "progress", "--report-dir", dir, "../../../features/simple.feature"})
	var exit ExitError
	if !errors.As(err, &exit) || exit.Code == 0 {
		t.Fatalf("run of a mutant: %v, want a non-zero exit\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "failed rules:        R2.4 (1 scenario)") {
		t.Errorf("the summary does not name R2.4:\n%s", stderr.String())
	}
	var s report.Summary
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Passed || s.Implementation != "mutant/ignores-exclude" || strings.Join(s.FailedRules(), ",") != "R2.4" {
		t.Errorf("summary: passed %v, implementation %q, failed rules %v", s.Passed, s.Implementation, s.FailedRules())
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
