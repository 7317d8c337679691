package main

import (
	"context"
	"io"
	"os"
	"slices"
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
// profiles/example/profile.yaml. What the profile declares must not fail a
// scenario; what it does not (refusing the pod on a conflict) must, and the
// report must attribute it to R4.2. Scenarios needing capabilities it does
// not claim are reported as not claimed.
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
		if sc.Outcome == report.Fail {
			t.Logf("failed: %s %v\n  %s", sc.Name, sc.Rules, strings.SplitN(sc.Failure, "\n", 2)[0])
			if len(sc.Rules) == 0 {
				t.Errorf("failed scenario %s is attributed to no rule", sc.Name)
			}
			if !slices.Contains(sc.Rules, "R4.2") {
				t.Errorf("scenario %s failed, but only the conflict behaviour (R4.2) differs undeclared: %s", sc.Name, sc.Failure)
			}
		}
	}
	if !slices.Contains(summary.FailedRules(), "R4.2") {
		t.Errorf("R4.2 did not fail; failed rules: %v", summary.FailedRules())
	}
	if summary.Totals[report.NotClaimed] == 0 {
		t.Errorf("no scenario was reported as not claimed (the profile claims no events, warnings or rollout)")
	}
	t.Logf("failed rules %v; totals %v", summary.FailedRules(), summary.Totals)
}
