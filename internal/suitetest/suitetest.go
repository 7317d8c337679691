package suitetest

import (
	"context"
	"fmt"
	"io"
	"testing"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
	"presetsim.dev/presetsim/steps"
)

// Offline runs the features under dir on the offline backend against the
// reference module and fails t once per failed scenario, naming its failing
// check. A scenario the offline backend cannot run is logged, not failed.
func Offline(t testing.TB, dir string) {
	t.Helper()
	Run(t, harness.Options{Backend: offline.New()}, dir)
}

// Run runs the features under dir on a World started with opts and fails
// t once per failed scenario, as Offline does, and once per finding (what
// the implementation did with a request its registration does not send it:
// presetsim's own must leave them alone all the same).
func Run(t testing.TB, opts harness.Options, dir string) {
	t.Helper()
	w, err := harness.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("unable to start the backend: %v", err)
	}
	defer func() {
		if err := w.Stop(); err != nil {
			t.Errorf("stopping the backend: %v", err)
		}
	}()
	_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{dir}, Format: "progress", Output: io.Discard})
	passed := 0
	for _, tm := range timings.List() {
		switch {
		case tm.Failed:
			t.Errorf("%s: %s", tm.Scenario, failure(tm))
		case tm.Unsupported != "":
			t.Logf("%s: not run on this backend: %s", tm.Scenario, tm.Unsupported)
		default:
			passed++
		}
		// What is judged here is presetsim's own code, which must leave
		// every request but a pod's creation alone, sent or not.
		for _, f := range tm.Findings {
			t.Errorf("%s: %s", tm.Scenario, f)
		}
	}
	if passed == 0 {
		t.Errorf("no scenario under %s passed: the suite did not run", dir)
	}
}

func failure(tm outcome.Scenario) string {
	if c := tm.FailedCheck(); c != nil {
		return fmt.Sprintf("%s (line %d) → %s: %v", c.Step, c.Line, rule.Join(c.Rules, ","), c.Err)
	}
	if tm.Err != nil {
		return tm.Err.Error()
	}
	return "failed"
}

// API is the World's API server, for a test that reaches past the step
// API; it fails t on a backend without one.
func API(t testing.TB, w *harness.World) *backend.API {
	t.Helper()
	api, ok := w.API()
	if !ok {
		t.Fatalf("the %s backend has no API server", w.Backend)
	}
	return api
}
