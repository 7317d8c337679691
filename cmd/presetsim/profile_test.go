package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"presetsim.dev/presetsim/cmd/presetsim/app"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/mutants"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/report"
	"presetsim.dev/presetsim/steps"
)

// TestProfileAttributesEveryDifference runs the suite against the example
// implementation, whose CRD group and kind, selector field, annotation keys
// and conflict behaviour all differ from the canonical ones, described by
// profiles/example/profile.yaml. Nothing may fail: its refusing a pod on a
// conflict is declared (conflicts: reject), and those scenarios differ as
// declared, naming the declaration; scenarios and checks needing
// capabilities it does not claim are reported as not claimed.
func TestProfileAttributesEveryDifference(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	prof, err := profile.Load("../../profiles/example/profile.yaml")
	if err != nil {
		t.Fatal(err)
	}
	modules := harness.NewModules()
	mutants.RegisterExample(modules)
	interrupts := harness.CatchSignals(context.Background())
	defer interrupts.Release()
	w, err := harness.Start(interrupts.Context(), harness.Options{Module: mutants.ExampleModule, Modules: modules, Profile: prof, Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	interrupts.OnSignal(w.Stop)
	defer w.Stop()
	_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features"}, Format: "progress", Output: io.Discard})

	summary := report.Build(prof.Spec.Implementation, prof.Spec.Version, "envtest", app.ScenarioResults(timings.List()))
	for _, sc := range summary.Scenarios {
		switch sc.Outcome {
		case report.Fail:
			t.Errorf("failed: %s (check %s)\n  %s", sc.Name, sc.FailedCheck, strings.SplitN(sc.Failure, "\n", 2)[0])
		case report.Differs:
			if !strings.Contains(sc.Reason, "conflicts: reject") {
				t.Errorf("%s differs, but not as the profile declares: %s", sc.Name, sc.Reason)
			}
		}
	}
	if summary.Totals[report.Differs] == 0 {
		t.Errorf("no scenario differs as declared (the example refuses conflicting pods)")
	}
	if summary.Totals[report.NotClaimed] == 0 {
		t.Errorf("no scenario was reported as not claimed (the profile claims no events, warnings or rollout)")
	}
	t.Logf("failed rules %v; totals %v", summary.FailedRules(), summary.Totals)
}
