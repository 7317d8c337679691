package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/report"
	"presetsim.dev/presetsim/steps"
)

// writeReports writes the run's summary (JSON, YAML), JUnit XML and HTML
// page into dir.
func writeReports(dir, implementation string, w *harness.World, timings []steps.Timing) error {
	results := make([]report.ScenarioResult, len(timings))
	for i, t := range timings {
		results[i] = report.ScenarioResult{Name: t.Scenario, Tags: t.Tags, Duration: t.Duration, Failed: t.Failed, Unsupported: t.Unsupported, NotClaimed: t.NotClaimed}
		if t.Err != nil {
			results[i].Failure = t.Err.Error()
		}
	}
	version := "presetsim, offline"
	if w.ServerVersion != "" {
		version = "presetsim, Kubernetes " + w.ServerVersion
	}
	s := report.Build(implementation, version, string(w.Backend), results)
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"summary.json", func(b *bytes.Buffer) error { return s.WriteJSON(b) }},
		{"summary.yaml", func(b *bytes.Buffer) error { return s.WriteYAML(b) }},
		{"junit.xml", func(b *bytes.Buffer) error { return s.WriteJUnit(b) }},
		{"report.html", func(b *bytes.Buffer) error { return s.WriteHTML(b) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("unable to write the report: %w", err)
		}
	}
	return nil
}
