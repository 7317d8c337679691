package mutants_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/mutants"
	"presetsim.dev/presetsim/steps"
)

// TestSuiteCatchesEveryMutant runs the feature suite, offline, against the
// reference and against every mutant: the reference must pass everything
// it runs; each mutant must fail at least one scenario, and at least one
// failing check must be credited to the rule the mutant breaks.
func TestSuiteCatchesEveryMutant(t *testing.T) {
	modules := harness.NewModules()
	mutants.Register(modules)
	run := func(t *testing.T, module string) []steps.Timing {
		t.Helper()
		w, err := harness.Start(context.Background(), harness.Options{Backend: harness.Offline, Module: module, Modules: modules})
		if err != nil {
			t.Fatalf("unable to start %s offline: %v", module, err)
		}
		defer w.Stop()
		_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features"}, Format: "progress", Output: io.Discard})
		return timings.List()
	}

	t.Run("reference", func(t *testing.T) {
		for _, s := range run(t, harness.ReferenceModule) {
			if s.Failed {
				t.Errorf("the reference fails %s: %v", s.Scenario, s.Err)
			}
		}
	})
	for _, m := range mutants.All {
		t.Run(m.Name, func(t *testing.T) {
			var failed, named []string
			for _, s := range run(t, mutants.Prefix+m.Name) {
				if !s.Failed {
					continue
				}
				failed = append(failed, fmt.Sprintf("%s → %v", s.Scenario, s.FailedRules()))
				if slices.Contains(s.FailedRules(), m.Rule) {
					named = append(named, s.Scenario)
				}
			}
			switch {
			case len(failed) == 0:
				t.Errorf("mutant %s (%s: %s) passes the whole suite", m.Name, m.Rule, m.Fault)
			case len(named) == 0:
				t.Errorf("mutant %s breaks %s, but no failing check is credited to %s; failing:\n  %s", m.Name, m.Rule, m.Rule, strings.Join(failed, "\n  "))
			default:
				t.Logf("%s (%s) caught by %d scenarios, %d blaming %s: %s", m.Name, m.Rule, len(failed), len(named), m.Rule, strings.Join(failed, "; "))
			}
		})
	}
}
