package conformance_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/conformance"
	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/outcome"
)

// TestReferenceOffline: the reference passes the seed features offline,
// one subtest per scenario, and the report written to the report folder
// reads back as the report returned, versioned.
func TestReferenceOffline(t *testing.T) {
	dir := t.TempDir()
	r := conformance.Run(t,
		conformance.WithBackend(offline.New()),
		conformance.WithFeatures(presetsim.Suite, "features/simple.feature", "features/conflict.feature"),
		conformance.WithReportDir(dir))
	if r == nil {
		t.Fatal("no report")
	}
	if !r.Passed || r.Totals[outcome.Passed] < 2 || r.Totals[outcome.Failed] != 0 {
		t.Errorf("the reference: passed %v, totals %v; want passed, no failure, at least 2 scenarios passed", r.Passed, r.Totals)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	back, err := outcome.ReadReport(data)
	if err != nil {
		t.Fatalf("summary.json does not read back: %v", err)
	}
	if back.APIVersion != outcome.ReportAPIVersion || back.Kind != outcome.ReportKind || len(back.Scenarios) != len(r.Scenarios) {
		t.Errorf("summary.json: %s %s with %d scenarios, want %s %s with %d", back.APIVersion, back.Kind, len(back.Scenarios),
			outcome.ReportAPIVersion, outcome.ReportKind, len(r.Scenarios))
	}
	for _, name := range []string{"junit.xml", "report.html", "summary.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the report folder lacks %s: %v", name, err)
		}
	}
}

// TestMutantFailsItsRule: against an implementation that ignores the
// exclude annotation, the run fails, and the failing subtest names R2.4.
// The run is a child test process (helperEnv), whose failure is this
// test's evidence.
func TestMutantFailsItsRule(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		impl, err := module.Implementation(mutants.Registry(), "mutant/ignores-exclude")
		if err != nil {
			t.Fatal(err)
		}
		conformance.Run(t, conformance.WithBackend(offline.New()), conformance.WithImplementation(impl), conformance.WithTags("@R2.4"))
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMutantFailsItsRule$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the run against the mutant did not fail (%v):\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- FAIL: TestMutantFailsItsRule/") || !strings.Contains(string(out), "→ R2.4") {
		t.Errorf("the failing subtest does not name R2.4:\n%s", out)
	}
}

// helperEnv makes TestMutantFailsItsRule the child run.
const helperEnv = "PRESETSIM_CONFORMANCE_CHILD"
