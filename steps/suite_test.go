package steps_test

import (
	"context"
	"os"
	"testing"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/steps"
)

// TestFeatures runs every feature file against the reference implementation
// on a real control plane; each scenario is a subtest.
func TestFeatures(t *testing.T) {
	if testing.Short() {
		t.Skip("the feature suite starts etcd, kube-apiserver and kube-controller-manager; skipped with -short")
	}
	interrupts := interrupt.Catch(context.Background())
	defer interrupts.Release()
	w, err := harness.Start(interrupts.Context(), harness.Options{Progress: os.Stderr})
	if err != nil {
		t.Fatalf("unable to start the harness: %v", err)
	}
	interrupts.OnSignal(w.Stop)
	t.Cleanup(func() {
		if err := w.Stop(); err != nil {
			t.Errorf("unable to stop the harness: %v", err)
		}
	})
	status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../features"}, Format: "progress", TestingT: t})
	if status != 0 {
		t.Errorf("feature suite failed with status %d", status)
	}
	t.Logf("control plane start %s; median scenario %s", w.Started, timings.Median())
}
