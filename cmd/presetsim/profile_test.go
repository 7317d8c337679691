package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
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
			summary := runOnCRD(t, tc.profile, "../../features/validation.feature")
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

// TestCRDLacksAField: a preset the scenario creates with a field of the
// core types that the implementation's CRD, as its commit shipped it, does
// not know (an image volume: redhat-cop's CRD is of k8s.io/api v0.19) is
// refused by the API server, and the failure is credited to R1.2 first,
// though the scenario is tagged with the rules of injection only.
func TestCRDLacksAField(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	dir := t.TempDir()
	feature := filepath.Join(dir, "recent.feature")
	if err := os.WriteFile(feature, []byte(`Feature: a recent field
  @R3.1
  Scenario: An image volume is injected as written
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: tools
      spec:
        selector:
          matchLabels:
            role: frontend
        volumes:
          - name: tools
            image:
              reference: registry.example/tools:1.2
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: website
        labels:
          role: frontend
      spec:
        containers:
          - name: website
            image: ecorp/website
      """
    Then the pod "website" should be as submitted
`), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := runOnCRD(t, "redhat-cop-podpreset-webhook.yaml", feature)
	if len(summary.Scenarios) != 1 {
		t.Fatalf("%d scenarios, want 1", len(summary.Scenarios))
	}
	sc := summary.Scenarios[0]
	if sc.Outcome != outcome.Failed {
		t.Fatalf("outcome %s, want failed (%s)", sc.Outcome, sc.Failure)
	}
	if got := sc.FailedRules(); len(got) == 0 || got[0] != rule.R1_2 || !strings.Contains(sc.Failure, "unknown field") {
		t.Errorf("failed rules %v, want R1.2 first, for the refusal of the unknown field:\n%s", got, sc.Failure)
	}
}

// runOnCRD runs a feature file on envtest with the CRD of a shipped profile
// installed and the no-op module as the implementation: what the API
// server alone makes of the scenarios' objects.
func runOnCRD(t *testing.T, profileFile, feature string) *outcome.Report {
	t.Helper()
	prof, err := profile.Load("../../profiles/" + profileFile)
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
	_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{feature}, Format: "progress", Output: io.Discard})
	return report.Build(prof.Spec.Implementation, prof.Spec.Version, "envtest", report.Results(timings.List()))
}
