package app

import (
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/outcome"
)

// ScenarioResults turns a run's timings into the results reports are built
// from.
func ScenarioResults(timings []outcome.Scenario) []report.ScenarioResult {
	results := make([]report.ScenarioResult, len(timings))
	for i, t := range timings {
		results[i] = report.ScenarioResult{Name: t.Scenario, Tags: t.Tags, Duration: t.Duration, Failed: t.Failed,
			Unsupported: t.Unsupported, NotClaimed: t.NotClaimed, NotApplicable: t.NotApplicable}
		if t.Err != nil {
			results[i].Failure = t.Err.Error()
		}
		for _, c := range t.Checks {
			rc := report.Check{Step: c.Step, Line: c.Line, Rules: c.Rules, Outcome: c.Outcome, Detail: c.Reason, SettleSeconds: c.Window.Seconds()}
			if c.Err != nil && c.Outcome == outcome.Failed {
				rc.Detail = c.Err.Error()
			}
			results[i].Checks = append(results[i].Checks, rc)
		}
	}
	return results
}

// runSummary is the run's summary, as the report files and the verdict
// ConfigMap hold it.
func runSummary(implementation string, w *harness.World, timings []outcome.Scenario) *report.Summary {
	version := "presetsim, in memory"
	if w.ServerVersion != "" {
		version = "presetsim, Kubernetes " + w.ServerVersion
	}
	return report.Build(implementation, version, string(w.Backend), ScenarioResults(timings))
}
