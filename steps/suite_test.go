package steps_test

import (
	"context"
	"io"
	"os"
	"regexp"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"

	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	policyimpl "presetsim.dev/presetsim/internal/implementation/policy"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/steps"
)

// TestFeatures runs every feature file against the reference implementation
// on a real control plane; each scenario is a subtest.
func TestFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("the feature suite starts etcd, kube-apiserver and kube-controller-manager; skipped with -short")
	}
	w := startWorld(t, harness.Options{Backend: envtest.New(envtest.Options{})})
	status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../features"}, Format: "progress", TestingT: t})
	if status != 0 {
		t.Errorf("feature suite failed with status %d", status)
	}
	t.Logf("control plane start %s; median scenario %s", w.Started, timings.Median())
}

// TestFeaturesPolicy runs every feature file against PodPreset as a
// MutatingAdmissionPolicy, under its shipped profile, on a real control
// plane and offline (the API server's own policy plug-ins in-process):
// every scenario passes or is not claimed, and only for what the profile
// leaves out (events, rollout); offline, a scenario may also be
// unsupported (validation, controllers, nodes).
func TestFeaturesPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("the feature suite starts etcd, kube-apiserver and kube-controller-manager; skipped with -short")
	}
	prof, err := profile.Load("../profiles/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("envtest", func(t *testing.T) {
		checkPolicySuite(t, startWorld(t, harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: policyimpl.New(policyimpl.Options{}), Profile: prof}))
	})
	t.Run("offline", func(t *testing.T) {
		// As the presetsim command does (docs/policy.md): the plug-ins
		// compile a written policy within 10ms, not a second.
		defer generic.SetPolicyRefreshIntervalForTests(10 * time.Millisecond)()
		checkPolicySuite(t, startWorld(t, harness.Options{Backend: offline.New(), Implementation: policyimpl.New(policyimpl.Options{}), Profile: prof}))
	})
}

func checkPolicySuite(t *testing.T, w *harness.World) {
	status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../features"}, Format: "progress", Output: io.Discard})
	passed, unsupported := 0, 0
	for _, s := range timings.List() {
		switch s.Outcome() {
		case outcome.Passed:
			passed++
		case outcome.Unsupported:
			unsupported++
			if w.Backend != offline.Name {
				t.Errorf("%s is unsupported on %s: %s", s.Scenario, w.Backend, s.Unsupported)
			}
		case outcome.NotClaimed:
			if !regexp.MustCompile(`^@?(events|rollout)$`).MatchString(s.NotClaimed) {
				t.Errorf("%s is not claimed for a reason the profile does not give: %s", s.Scenario, s.NotClaimed)
			}
		default:
			t.Errorf("%s: %s (%v → %v)", s.Scenario, s.Outcome(), s.Err, s.FailedRules())
		}
	}
	if status != 0 || passed < (len(timings.List())-unsupported)*9/10 {
		t.Errorf("status %d, %d of %d scenarios passed (%d unsupported)", status, passed, len(timings.List()), unsupported)
	}
}

// startWorld starts the harness for t, stops it when t ends, and stops it
// on SIGINT or SIGTERM too.
func startWorld(t *testing.T, opts harness.Options) *harness.World {
	t.Helper()
	interrupts := interrupt.Catch(context.Background())
	t.Cleanup(interrupts.Release)
	opts.Progress = os.Stderr
	w, err := harness.Start(interrupts.Context(), opts)
	if err != nil {
		t.Fatalf("unable to start the harness: %v", err)
	}
	interrupts.OnSignal(w.Stop)
	t.Cleanup(func() {
		if err := w.Stop(); err != nil {
			t.Errorf("unable to stop the harness: %v", err)
		}
	})
	return w
}
