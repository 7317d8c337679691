package steps_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

// TestPrettyLocations: in godog's pretty format every step names the line
// of steps.go that defines it, not the registrar's wrapper.
func TestPrettyLocations(t *testing.T) {
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	var out bytes.Buffer
	status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{"../features/simple.feature"}, Format: "pretty", Concurrency: 1, Output: &out})
	if status != 0 {
		t.Fatalf("the run failed:\n%s", out.String())
	}
	if strings.Contains(out.String(), "makeFuncStub") {
		t.Errorf("a step is located at the registrar's wrapper:\n%s", out.String())
	}
	steps := regexp.MustCompile(`(?m)^\s+(Given|When|Then|And) .*# steps\.go:\d+$`).FindAllString(out.String(), -1)
	if len(steps) < 10 {
		t.Errorf("%d steps located in steps.go, want every step of simple.feature:\n%s", len(steps), out.String())
	}
}
