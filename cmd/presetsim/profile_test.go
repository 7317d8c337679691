package main

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"presetsim.dev/presetsim/backends/envtest"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/outcome"
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
	example, err := mutants.Implementation(mutants.ExampleModule)
	if err != nil {
		t.Fatal(err)
	}
	interrupts := interrupt.Catch(context.Background())
	defer interrupts.Release()
	w, err := harness.Start(interrupts.Context(), harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: example, Profile: prof, Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	interrupts.OnSignal(w.Stop)
	defer w.Stop()
	_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features"}, Format: "progress", Output: io.Discard})

	summary := report.Build(prof.Spec.Implementation, prof.Spec.Version, "envtest", report.Results(timings.List()))
	for _, sc := range summary.Scenarios {
		switch sc.Outcome {
		case outcome.Failed:
			t.Errorf("failed: %s (check %s)\n  %s", sc.Name, sc.FailedCheck, strings.SplitN(sc.Failure, "\n", 2)[0])
		case outcome.Differs:
			if !strings.Contains(sc.Reason, "conflicts: reject") {
				t.Errorf("%s differs, but not as the profile declares: %s", sc.Name, sc.Reason)
			}
		}
	}
	if summary.Totals[outcome.Differs] == 0 {
		t.Errorf("no scenario differs as declared (the example refuses conflicting pods)")
	}
	if summary.Totals[outcome.NotClaimed] == 0 {
		t.Errorf("no scenario was reported as not claimed (the profile claims no events, warnings or rollout)")
	}
	t.Logf("failed rules %v; totals %v", summary.FailedRules(), summary.Totals)
}

// TestShippedCRDs runs the R1 scenarios (features/validation.feature)
// against the CRDs the redhat-cop, Kubeflow and wozniakjan profiles
// install, on a real API server. They only create and update presets, so
// the no-op module serves as the implementation. Nothing may fail: what the CRDs do not
// check is declared (validation: schema, none), and what they do check
// must pass.
func TestShippedCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes; skipped with -short")
	}
	for _, tc := range []struct {
		profile string
		pass    []rule.ID
	}{
		{"redhat-cop-podpreset-webhook.yaml", []rule.ID{rule.R1_2}},
		{"kubeflow-poddefault.yaml", []rule.ID{rule.R1_2}},
		{"wozniakjan-podpreset-crd.yaml", nil},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			prof, err := profile.Load("../../profiles/" + tc.profile)
			if err != nil {
				t.Fatal(err)
			}
			noop, err := mutants.Implementation(mutants.NoopModule)
			if err != nil {
				t.Fatal(err)
			}
			w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: noop, Profile: prof, AcceptUnmutatedProbe: true})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features/validation.feature"}, Format: "progress", Output: io.Discard})
			summary := report.Build(prof.Spec.Implementation, prof.Spec.Version, "envtest", report.Results(timings.List()))
			for _, sc := range summary.Scenarios {
				if sc.Outcome == outcome.Failed || sc.Outcome == outcome.NotApplicable {
					t.Errorf("%s: %s (%s%s)\n  %s", sc.Name, sc.Outcome, sc.FailedCheck, sc.Reason, strings.SplitN(sc.Failure, "\n", 2)[0])
				}
			}
			got := map[rule.ID]outcome.Outcome{}
			for _, r := range summary.Rules {
				if r.ID.Section() == "R1" {
					got[r.ID] = r.Outcome
				}
			}
			for _, rule := range tc.pass {
				if got[rule] != outcome.Passed {
					t.Errorf("%s: %s, want pass: the CRD checks it", rule, got[rule])
				}
			}
			t.Logf("R1 outcomes: %v", got)
		})
	}
}
