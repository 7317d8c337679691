package fuzz

import (
	"slices"
	"testing"

	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/rule"
)

// hypothesis is the oracle's hypothesis of that name.
func hypothesis(t *testing.T, name string) *oracle.Hypothesis {
	t.Helper()
	hs := oracle.HypothesesInOrder()
	i := slices.IndexFunc(hs, func(h *oracle.Hypothesis) bool { return h.Name == name })
	if i < 0 {
		t.Fatalf("no hypothesis %q", name)
	}
	return hs[i]
}

// TestTallyResolve: cases two hypotheses explain alike are credited to the
// one that explains the run's other cases too; a case no hypothesis
// explains stays a kind of its own; a kind keeps its next cases' seeds.
func TestTallyResolve(t *testing.T) {
	empty, unreported := hypothesis(t, "does not select presets with the empty selector"), hypothesis(t, "reports no conflict")
	d := oracle.Disagreement{Rules: []rule.ID{rule.R4_3}, Aspect: oracle.Warnings, Summary: "the create returned the warnings []"}
	tl := newTally()
	tl.add(1, []oracle.Disagreement{d}, []*oracle.Hypothesis{empty, unreported}, false) // ambiguous: the empty selector's preset conflicted
	tl.add(2, []oracle.Disagreement{d}, []*oracle.Hypothesis{unreported}, false)
	tl.add(3, []oracle.Disagreement{d}, []*oracle.Hypothesis{unreported}, false)
	tl.add(4, []oracle.Disagreement{{Rules: []rule.ID{rule.R3_2}, Aspect: oracle.Pod}}, nil, false)
	got := tl.resolve()
	if len(got) != 2 {
		t.Fatalf("%d kinds, want 2: %+v", len(got), got)
	}
	if r := got[0]; r.Count != 3 || r.Rules[0] != rule.R4_3 || r.found.AsIf != unreported.Name || r.CaseSeed != 1 {
		t.Errorf("first kind %+v (as if %q), want the 3 cases credited to %q, found at case 1", r, r.found.AsIf, unreported.Name)
	}
	if r := got[1]; r.Count != 1 || r.found.AsIf != "" || r.Rules[0] != rule.R3_2 {
		t.Errorf("second kind %+v, want the unexplained case", r)
	}
	// The next cases of a kind, merged from the keys credited to it, are
	// kept for shrinking, in the order found.
	if want := []uint64{2, 3}; !slices.Equal(got[0].more, want) {
		t.Errorf("first kind's next cases %v, want %v", got[0].more, want)
	}
	for seed := uint64(5); seed < 8; seed++ {
		tl.add(seed, []oracle.Disagreement{{Rules: []rule.ID{rule.R3_2}, Aspect: oracle.Pod}}, nil, false)
	}
	if want := []uint64{5, 6, 7}; !slices.Equal(tl.resolve()[1].more, want) {
		t.Errorf("second kind's next cases %v, want %v", tl.resolve()[1].more, want)
	}
}

// TestKindOf: the dry run and the create showing one fault are one kind,
// and so are invalid presets of different names; different rules or
// different aspects of the outcome are not.
func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b oracle.Disagreement
		same bool
	}{
		{"dry run and create", oracle.Disagreement{Rules: []rule.ID{rule.R3_2}, Aspect: oracle.Pod, Summary: "the dry-run create made another pod than the model: x"},
			oracle.Disagreement{Rules: []rule.ID{rule.R3_2}, Aspect: oracle.Pod, Summary: "the create made another pod than the model: y"}, true},
		{"two invalid presets", oracle.Disagreement{Rules: []rule.ID{rule.R1_3}, Aspect: oracle.InvalidStored, Summary: "the invalid preset a was stored; the specification refuses it: x"},
			oracle.Disagreement{Rules: []rule.ID{rule.R1_3}, Aspect: oracle.InvalidStored, Summary: "the invalid preset b-2 was stored; the specification refuses it: y"}, true},
		{"other rules", oracle.Disagreement{Rules: []rule.ID{rule.R3_2}, Aspect: oracle.Pod},
			oracle.Disagreement{Rules: []rule.ID{rule.R3_1}, Aspect: oracle.Pod}, false},
		{"stored or refused without a path", oracle.Disagreement{Rules: []rule.ID{rule.R1_3}, Aspect: oracle.InvalidStored},
			oracle.Disagreement{Rules: []rule.ID{rule.R1_3}, Aspect: oracle.InvalidUnnamed}, false},
		{"events missing or wrong", oracle.Disagreement{Rules: []rule.ID{rule.R4_3}, Aspect: oracle.EventsMissing},
			oracle.Disagreement{Rules: []rule.ID{rule.R4_3}, Aspect: oracle.Events}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if same := kindOf(tc.a) == kindOf(tc.b); same != tc.same {
				t.Errorf("kindOf(%+v) == kindOf(%+v): %v, want %v", tc.a, tc.b, same, tc.same)
			}
		})
	}
}

// TestHistoryFirst: the seeds of cases with a history of their own lead,
// no more of them than the limit, and every seed is kept, the others in
// their order.
func TestHistoryFirst(t *testing.T) {
	seeds := make([]uint64, 200)
	var histories int
	for i := range seeds {
		seeds[i] = uint64(i + 1)
		if Generate(seeds[i]).Recreate != nil {
			histories++
		}
	}
	if histories < 3 {
		t.Fatalf("%d of 200 cases have a history of their own; the test needs three", histories)
	}
	for _, tc := range []struct {
		name  string
		limit int
		want  int
	}{
		{"all of them", len(seeds), histories},
		{"two", 2, 2},
		{"none", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := historyFirst(seeds, tc.limit)
			if n != tc.want {
				t.Fatalf("%d lead, want %d", n, tc.want)
			}
			for _, seed := range got[:n] {
				if Generate(seed).Recreate == nil {
					t.Errorf("seed %d leads without a history", seed)
				}
			}
			if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, seeds) {
				t.Errorf("seeds lost or repeated: %v", got)
			}
			if rest := got[n:]; !slices.IsSorted(rest) {
				t.Errorf("the others out of their order: %v", rest)
			}
		})
	}
}
