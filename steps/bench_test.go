package steps_test

import (
	"context"
	"io"
	"testing"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

// seedFeatures are the five features of the seed document.
var seedFeatures = []string{
	"../features/simple.feature",
	"../features/configmap.feature",
	"../features/replicaset.feature",
	"../features/multiple.feature",
	"../features/conflict.feature",
}

// BenchmarkOfflineSeedFeatures runs the five seed features on the offline
// backend, one World for all iterations, and reports scenarios per second.
// The figure includes the settle windows of "should have no events" steps
// (the offline backend's Waits), which dominate it.
func BenchmarkOfflineSeedFeatures(b *testing.B) {
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New()})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	scenarios := 0
	for b.Loop() {
		status, timings := steps.Run(w, steps.SuiteOptions{Paths: seedFeatures, Format: "progress", Output: io.Discard})
		if status != 0 {
			b.Fatalf("the seed features failed offline (status %d)", status)
		}
		scenarios += len(timings.List())
	}
	b.ReportMetric(float64(scenarios)/b.Elapsed().Seconds(), "scenarios/s")
	b.ReportMetric(float64(scenarios)/float64(b.N), "scenarios/op")
}
