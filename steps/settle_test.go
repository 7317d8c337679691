package steps_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/steps"
)

// TestSettleWindows: a "never" check watches for the run's settle window
// (what --settle sets) unless its step names its own, counted from the end
// of the scenario's last setup step (checks in a row share it; a change
// starts a new one), the report's check records the window it used, and a
// window that is not a duration fails the step with a message that says how
// to write one. The scenario's phases name its steps, then what the runner
// does after them (checkPhases).
func TestSettleWindows(t *testing.T) {
	const run = 300 * time.Millisecond
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New(), Timeouts: harness.Timeouts{Settle: run}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if w.Timeouts.Wait == 0 {
		t.Errorf("setting the settle window left the wait bound zero: %+v", w.Timeouts)
	}
	_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"testdata/settle"}, Format: "progress", Output: io.Discard})
	byName := map[string]outcome.Scenario{}
	for _, sc := range timings.List() {
		byName[sc.Scenario[strings.Index(sc.Scenario, ": ")+2:]] = sc
	}
	tests := []struct {
		scenario string
		windows  []time.Duration // of the scenario's checks, in order
		failure  string
		// atLeast is how long the scenario must have taken: its last
		// window closes that long after its start, at the soonest.
		atLeast time.Duration
	}{
		{scenario: "the run's window", windows: []time.Duration{run, run}, atLeast: run},
		{scenario: "the step's own window", windows: []time.Duration{150 * time.Millisecond, 250 * time.Millisecond}, atLeast: 250 * time.Millisecond},
		{scenario: "a change between checks starts a new window", windows: []time.Duration{run, run}, atLeast: 2 * run},
		{scenario: "a window that is not a duration", windows: []time.Duration{0}, failure: `"soon" is not a settle window`},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			sc, ok := byName[tt.scenario]
			if !ok {
				t.Fatalf("no result for the scenario; have %d", len(byName))
			}
			if tt.failure != "" {
				if !sc.Failed || sc.Err == nil || !strings.Contains(sc.Err.Error(), tt.failure) {
					t.Fatalf("failed %v with %v, want a failure containing %q", sc.Failed, sc.Err, tt.failure)
				}
			} else if sc.Failed {
				t.Fatalf("failed: %v", sc.Err)
			}
			var got []time.Duration
			for _, c := range sc.Checks {
				got = append(got, c.Window)
			}
			if len(got) != len(tt.windows) {
				t.Fatalf("windows %v, want %v", got, tt.windows)
			}
			for i := range got {
				if got[i] != tt.windows[i] {
					t.Errorf("check %d watched for %s, want %s", i, got[i], tt.windows[i])
				}
			}
			if sc.Duration < tt.atLeast {
				t.Errorf("the scenario took %s, less than the %s its windows need", sc.Duration, tt.atLeast)
			}
			checkPhases(t, sc, tt.atLeast)
		})
	}
}

// checkPhases checks a settle scenario's phases: its steps first, the
// Background's among them, taking together at least what its windows need;
// then the model's check unless a step failed, the clean-up and the
// deletion of its namespace; no more time in all than the scenario took.
func checkPhases(t *testing.T, sc outcome.Scenario, atLeast time.Duration) {
	t.Helper()
	var names []string
	var steps, sum time.Duration
	for _, p := range sc.Phases {
		names = append(names, p.Name)
		sum += p.Duration
		if !strings.HasPrefix(p.Name, "(") {
			steps += p.Duration
		}
	}
	after := []string{outcome.PhaseModel, outcome.PhaseCleanUp, outcome.PhaseNamespaces}
	if sc.Failed {
		after = after[1:]
	}
	if len(names) <= len(after) || names[0] != "I create the pod:" || strings.Join(names[len(names)-len(after):], "|") != strings.Join(after, "|") {
		t.Fatalf("phases %q: want the steps, the Background's first, then %q", names, after)
	}
	if steps < atLeast {
		t.Errorf("the steps took %s, less than the %s their windows need", steps, atLeast)
	}
	if sum > sc.Duration {
		t.Errorf("phases add up to %s, more than the scenario's %s", sum, sc.Duration)
	}
}
