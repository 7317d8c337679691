package mutants_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/steps"
)

// shortEvery: with -short, TestSuiteCatchesEveryMutant runs one mutant in
// this many (each runs the whole suite offline, about 2 s).
const shortEvery = 5

// TestSuiteCatchesEveryMutant runs the feature suite, offline, against the
// reference and against every mutant, each judged as if its registration
// sent it every request (backend.UnsubscribedFail: a mutant's fault is in
// its code, whatever a registration would spare it): the reference must
// pass everything it runs; each mutant must fail at least one scenario,
// and at least one failing check must be credited to the rule the mutant
// breaks.
func TestSuiteCatchesEveryMutant(t *testing.T) {
	run := func(t *testing.T, module string) []outcome.Scenario {
		t.Helper()
		return runOffline(t, module, harness.Options{Unsubscribed: backend.UnsubscribedFail})
	}

	t.Run("reference", func(t *testing.T) {
		seen := map[string]bool{}
		for _, s := range run(t, module.Reference) {
			if s.Failed {
				t.Errorf("the reference fails %s: %v", s.Scenario, s.Err)
			}
			// Reports and the differential run key scenarios by name.
			if seen[s.Scenario] {
				t.Errorf("two scenarios are named %q: give outline rows names of their own", s.Scenario)
			}
			seen[s.Scenario] = true
		}
	})
	for i, m := range mutants.All {
		t.Run(m.Name, func(t *testing.T) {
			if testing.Short() && i%shortEvery != 0 {
				t.Skipf("-short: one mutant in %d (make test runs every one)", shortEvery)
			}
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

// TestUnsubscribedAreFindings: as deployed (backend.UnsubscribedReport,
// the default), the mutants that change the requests a registration for
// the CREATE of pods never sends them — a pod's UPDATE, its ephemeral
// containers, a workload's template — fail no scenario for it (R5.4: such
// a request never reaches them in a cluster), and what they would do is a
// finding on the rule it breaks; the reference has none.
func TestUnsubscribedAreFindings(t *testing.T) {
	for _, tc := range []struct {
		module string
		rule   rule.ID
	}{
		{module.Reference, ""},
		{mutants.Prefix + "mutates-updates", rule.R2_1},
		{mutants.Prefix + "mutates-ephemeral-containers", rule.R3_2},
		{mutants.Prefix + "mutates-templates", rule.R2_6},
	} {
		t.Run(tc.module, func(t *testing.T) {
			found := 0
			for _, s := range runOffline(t, tc.module, harness.Options{}) {
				if s.Failed {
					t.Errorf("%s failed → %v: %v", s.Scenario, s.FailedRules(), s.Err)
				}
				for _, f := range s.Findings {
					found++
					if f.Rule != tc.rule {
						t.Errorf("%s: finding %s, want one on %s", s.Scenario, f, tc.rule)
					}
				}
			}
			if tc.rule != "" && found == 0 {
				t.Errorf("no finding on %s", tc.rule)
			}
		})
	}
}

// negativeRules are the rules of R2–R4 that only forbid something, which a
// module that does nothing cannot break: R3.8 (admitting a mutated pod
// again changes nothing) and R4.4 (a conflict removes nothing).
var negativeRules = []rule.ID{rule.R3_8, rule.R4_4}

// TestNoopFailsEveryPositiveRule runs the suite, offline, against a module
// that mutates nothing: every rule of R2–R4 that asks for something to
// happen must have a failing check credited to it, so that no such rule is
// "passed" by doing nothing.
func TestNoopFailsEveryPositiveRule(t *testing.T) {
	noop, err := mutants.Implementation(mutants.NoopModule)
	if err != nil {
		t.Fatal(err)
	}
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New(), Implementation: noop})
	if err == nil {
		defer w.Stop()
		t.Fatalf("the no-op module passed the readiness probe, which needs a mutated probe pod")
	}
	// The probe rightly refuses a module that mutates nothing; run the
	// suite against it all the same, with the probe's verdict as a note.
	if !strings.Contains(err.Error(), "mutated neither the dry-run probe pod nor a real one") {
		t.Fatalf("the readiness probe's message does not say what it saw: %v", err)
	}
	timings := runOffline(t, mutants.NoopModule, harness.Options{AcceptUnmutatedProbe: true})
	failed := map[rule.ID]bool{}
	for _, s := range timings {
		for _, r := range s.FailedRules() {
			failed[r] = true
		}
	}
	for _, id := range []rule.ID{rule.R2_1, rule.R2_2, rule.R2_3, rule.R2_4, rule.R2_5, rule.R2_6, rule.R3_1, rule.R3_2, rule.R3_3, rule.R3_4, rule.R3_5, rule.R3_6, rule.R3_7, rule.R3_8, rule.R4_1, rule.R4_2, rule.R4_3, rule.R4_4} {
		switch {
		case slices.Contains(negativeRules, id):
			if failed[id] {
				t.Logf("%s failed too, though doing nothing cannot break it (credited by a scenario's tags)", id)
			}
		case !failed[id]:
			t.Errorf("the no-op module passes %s: no check credited to it fails when nothing is injected", id)
		}
	}
}

// runOffline runs the features offline against the named module (of the
// registry with every module of this package) and returns how each
// scenario went.
func runOffline(t *testing.T, name string, opts harness.Options) []outcome.Scenario {
	t.Helper()
	impl, err := mutants.Implementation(name)
	if err != nil {
		t.Fatal(err)
	}
	opts.Backend, opts.Implementation = offline.New(), impl
	w, err := harness.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("unable to start %s offline: %v", name, err)
	}
	defer w.Stop()
	_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features"}, Format: "progress", Output: io.Discard})
	return timings.List()
}

// TestMutantRulesKnown: every mutant breaks a rule of the specification's
// catalogue (the reports credit no other).
func TestMutantRulesKnown(t *testing.T) {
	for _, m := range mutants.All {
		if !rule.Known(m.Rule) {
			t.Errorf("mutant %s breaks %q, which is no rule of the specification", m.Name, m.Rule)
		}
	}
}
