package app

import (
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/outcome"
)

// runSummary is the run's summary, as the report files and the verdict
// ConfigMap hold it.
func runSummary(implementation string, w *harness.World, timings []outcome.Scenario) *outcome.Report {
	version := "presetsim, in memory"
	if w.ServerVersion != "" {
		version = "presetsim, Kubernetes " + w.ServerVersion
	}
	return report.Build(implementation, version, string(w.Backend), report.Results(timings))
}
