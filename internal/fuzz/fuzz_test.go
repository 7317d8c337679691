package fuzz_test

import (
	"context"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"presetsim.dev/presetsim/backends/envtest"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/steps"
)

// startOffline starts the offline backend with an in-process module.
func startOffline(t testing.TB, module string) *harness.World {
	t.Helper()
	impl, err := mutants.Implementation(module)
	if err != nil {
		t.Fatal(err)
	}
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New(), Implementation: impl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	return w
}

// TestReferenceAgrees: the reference agrees with the model on every case
// of a fixed seed.
func TestReferenceAgrees(t *testing.T) {
	w := startOffline(t, "reference")
	cases := 200
	if n := os.Getenv("FUZZ_CASES"); n != "" {
		cases, _ = strconv.Atoi(n)
	}
	sum, err := fuzz.Run(context.Background(), w, fuzz.Options{Cases: cases, Seed: 1, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Cases != cases {
		t.Errorf("ran %d cases, want %d", sum.Cases, cases)
	}
	for _, d := range sum.Disagreements {
		t.Errorf("the reference disagrees with the model (%v, case seed %d): %s\n%s", d.Rules, d.CaseSeed, d.Summary, d.Detail)
	}
}

// TestMutantsFound: five mutants, each found with the rule it breaks
// named, and shrunk to a scenario. trusts-annotations is found only on the
// pods generated as copies (Case.Copied): a conflict it leaves unwarned;
// namespace-prefix only by the cases whose other namespace is named after
// the pod's (PeerNamespace).
func TestMutantsFound(t *testing.T) {
	for _, m := range []struct {
		name string
		rule rule.ID
	}{
		{"partial-apply", rule.R4_2},
		{"skips-init-containers", rule.R3_2},
		{"ignores-exclude", rule.R2_4},
		{"trusts-annotations", rule.R4_3},
		{"namespace-prefix", rule.R2_2},
	} {
		t.Run(m.name, func(t *testing.T) {
			w := startOffline(t, mutants.Prefix+m.name)
			out := t.TempDir()
			sum, err := fuzz.Run(context.Background(), w, fuzz.Options{Cases: 200, Seed: 1, Concurrency: 4, Out: out, Shrink: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(sum.Rules(), m.rule) {
				t.Fatalf("fuzz did not name %s; disagreements: %+v", m.rule, sum.Disagreements)
			}
			if sum.Disagreements[0].Feature == "" || !strings.HasPrefix(sum.Disagreements[0].Feature, out) {
				t.Errorf("the first disagreement was not written as a scenario: %+v", sum.Disagreements[0])
			}
		})
	}
}

// TestStateOverTimeFound: the mutants that keep state across admissions
// (R6.1–R6.3) are found by the cases' histories — the dry run before the
// create, a preset created again, namespaces that served earlier cases —
// and those with limits of their own (R6.4) by the cases at the edges;
// most of the disagreeing cases name their rule first; the
// scenario written for the first passes on the reference and fails on
// the mutant.
func TestStateOverTimeFound(t *testing.T) {
	for _, m := range []struct {
		name  string
		rule  rule.ID
		cases int
		// named is the share of disagreeing cases, in percent, that must
		// name the rule first.
		named int
	}{
		{"stale-after-recreate", rule.R6_1, 150, 90},
		{"carries-pods-env", rule.R6_2, 150, 90},
		{"conflict-reported-once", rule.R6_3, 150, 90},
		{"caps-presets", rule.R6_4, 300, 90},
		{"cuts-names-at-dot", rule.R6_4, 300, 90},
		{"caps-items", rule.R6_4, 300, 90},
		{"caps-containers", rule.R6_4, 300, 90},
	} {
		t.Run(m.name, func(t *testing.T) {
			w := startOffline(t, mutants.Prefix+m.name)
			out := t.TempDir()
			sum, err := fuzz.Run(context.Background(), w, fuzz.Options{Cases: m.cases, Seed: 1, Concurrency: 4, Out: out, Shrink: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Disagreements) == 0 {
				t.Fatal("no disagreement found")
			}
			named, all := 0, 0
			for _, d := range sum.Disagreements {
				all += d.Count
				if d.Rules[0] == m.rule {
					named += d.Count
				} else {
					t.Logf("a kind of %d cases names %v, not %s first: %.200s", d.Count, d.Rules, m.rule, d.Summary)
				}
			}
			if named*100 < all*m.named {
				t.Errorf("%d of %d disagreeing cases name %s first, want at least %d %%", named, all, m.rule, m.named)
			}
			first := sum.Disagreements[0]
			if first.Feature == "" || first.NotReproduced != "" {
				t.Fatalf("the first disagreement was not written as a scenario that reproduces it: %+v", first)
			}
			ref := startOffline(t, "reference")
			if failed := runFeature(t, ref, first.Feature); failed != 0 {
				t.Errorf("the scenario written fails on the reference: %s", first.Feature)
			}
			if failed := runFeature(t, w, first.Feature); failed == 0 {
				t.Errorf("the scenario written passes on the mutant: %s", first.Feature)
			}
		})
	}
}

// runFeature runs one feature file on a World: its exit status, 0 when
// every scenario passed.
func runFeature(t *testing.T, w *harness.World, path string) int {
	t.Helper()
	status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{path}, Format: "progress", Output: io.Discard})
	return status
}

// TestShards: the shards of a run, together, run its cases once each: a
// mutant's disagreeing cases add up to the whole run's, and each shard
// says which it was. (skips-init-containers: its disagreements are in the
// pods alone, the same on every run; those about events can vary with
// timing — ignores-exclude's count was 7 or 8 of 100 over runs.)
func TestShards(t *testing.T) {
	w := startOffline(t, mutants.Prefix+"skips-init-containers")
	run := func(sh fuzz.Shard) fuzz.Summary {
		t.Helper()
		sum, err := fuzz.Run(context.Background(), w, fuzz.Options{Cases: 100, Seed: 3, Shard: sh, Concurrency: 4, Shrink: -1})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	whole := run(fuzz.Shard{})
	cases, disagreeing := 0, 0
	for i := 1; i <= 3; i++ {
		sum := run(fuzz.Shard{I: i, N: 3})
		if sum.Shard != strconv.Itoa(i)+"/3" {
			t.Errorf("shard %d/3 says it was %q", i, sum.Shard)
		}
		cases += sum.Cases
		disagreeing += sum.Disagreeing
	}
	if cases != whole.Cases || disagreeing != whole.Disagreeing || whole.Disagreeing == 0 {
		t.Errorf("3 shards ran %d cases, %d disagreeing; the whole run %d, %d (want equal, and some)", cases, disagreeing, whole.Cases, whole.Disagreeing)
	}
	if _, err := fuzz.Run(context.Background(), w, fuzz.Options{Cases: 10, Seed: 3, Shard: fuzz.Shard{I: 4, N: 3}}); err == nil {
		t.Error("shard 4/3 was run")
	}
}

// TestStopAtFirst: a run told to stop at its first disagreement ends
// there, without error, with that disagreement reported and fewer cases
// done than asked; the same run without it does them all.
func TestStopAtFirst(t *testing.T) {
	w := startOffline(t, mutants.Prefix+"skips-init-containers")
	const cases = 300
	tests := []struct {
		name        string
		stopAtFirst bool
		whole       bool // all the cases done
	}{
		{name: "stopped at the first", stopAtFirst: true},
		{name: "the whole run", whole: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, err := fuzz.Run(context.Background(), w, fuzz.Options{Cases: cases, Seed: 3, Concurrency: 2, Shrink: -1, StopAtFirst: tt.stopAtFirst})
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Disagreements) == 0 || sum.Interrupted != "" {
				t.Fatalf("%d disagreements, interrupted %q: want some, not interrupted", len(sum.Disagreements), sum.Interrupted)
			}
			if (sum.Cases == cases) != tt.whole {
				t.Errorf("%d of %d cases done (%d disagreeing); want all of them: %v", sum.Cases, cases, sum.Disagreeing, tt.whole)
			}
		})
	}
}

// TestEnvtest: on a real control plane, the reference agrees with the
// model on every case of a fixed seed (dry runs, creates, warnings and
// conflict events), and a mutant is found with its rule named.
func TestEnvtest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; skipped with -short")
	}
	for _, m := range []struct {
		module string
		rule   rule.ID
	}{
		{"reference", ""},
		{mutants.Prefix + "partial-apply", rule.R4_2},
	} {
		t.Run(m.module, func(t *testing.T) {
			impl, err := mutants.Implementation(m.module)
			if err != nil {
				t.Fatal(err)
			}
			w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: impl})
			if err != nil {
				t.Fatalf("unable to start envtest: %v", err)
			}
			t.Cleanup(func() {
				if err := w.Stop(); err != nil {
					t.Errorf("unable to stop envtest: %v", err)
				}
			})
			sum, err := fuzz.Run(context.Background(), w, fuzz.Options{Cases: 200, Seed: 1, Concurrency: 8, Shrink: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d cases in %.1fs (%.0f cases/s)", sum.Cases, sum.Seconds, float64(sum.Cases)/sum.Seconds)
			if m.rule == "" {
				for _, d := range sum.Disagreements {
					t.Errorf("the reference disagrees with the model (%v, case seed %d): %s\n%s", d.Rules, d.CaseSeed, d.Summary, d.Detail)
				}
				return
			}
			if !slices.Contains(sum.Rules(), m.rule) {
				t.Fatalf("fuzz did not name %s; disagreements: %+v", m.rule, sum.Disagreements)
			}
			// Diagnosed on an API server too, whose own plug-ins add to
			// every pod (the service-account token volume).
			if !slices.ContainsFunc(sum.Disagreements, func(d fuzz.Report) bool {
				return d.Rules[0] == m.rule && strings.HasPrefix(d.Summary, "behaves as if it ")
			}) {
				t.Errorf("no disagreement was diagnosed with %s first; disagreements: %+v", m.rule, sum.Disagreements)
			}
		})
	}
}
