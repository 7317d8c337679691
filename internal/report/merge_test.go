package report

import (
	"reflect"
	"strings"
	"testing"

	"presetsim.dev/presetsim/outcome"
)

// TestMerge: the shards of a run, merged, are the summary of the whole run
// (rules, their scenarios and outcomes, totals, scenarios), however the
// scenarios were dealt; shards of different runs, or that overlap, are
// refused.
func TestMerge(t *testing.T) {
	whole := Build("reference", "presetsim, Kubernetes v1.37.1", "envtest", results)
	for _, n := range []int{1, 2, 3, len(results)} {
		shards := make([][]ScenarioResult, n)
		for i, r := range results {
			shards[i%n] = append(shards[i%n], r)
		}
		var summaries []*outcome.Report
		for _, sh := range shards {
			summaries = append(summaries, Build("reference", "presetsim, Kubernetes v1.37.1", "envtest", sh))
		}
		got, err := Merge(summaries)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if !reflect.DeepEqual(got, whole) {
			t.Errorf("%d shards merged differ from the whole run:\n%+v\nwant\n%+v", n, got, whole)
		}
	}
	a := Build("reference", "v", "envtest", results[:2])
	for _, tc := range []struct {
		name    string
		other   *outcome.Report
		wantErr string
	}{
		{"another implementation", Build("mutant/x", "v", "envtest", results[2:]), `implementation "mutant/x"`},
		{"another backend", Build("reference", "v", "offline", results[2:]), "ran on offline"},
		{"overlapping shards", Build("reference", "v", "envtest", results[1:]), "is in summaries 1 and 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Merge([]*outcome.Report{a, tc.other}); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Merge: %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// TestMergeUnfinished: a run one of whose shards did not finish did not
// finish, and has not passed, whatever its scenarios did.
func TestMergeUnfinished(t *testing.T) {
	passing := []ScenarioResult{{Name: "a.feature: one", Tags: []string{"@R2.1"}}, {Name: "b.feature: two", Tags: []string{"@R2.2"}}}
	first, second := Build("reference", "v", "envtest", passing[:1]), Build("reference", "v", "envtest", passing[1:])
	if !first.Passed || !second.Passed {
		t.Fatal("the shards do not pass to begin with")
	}
	second.SetInterrupted("exit status 130: 1 scenario finished")
	got, err := Merge([]*outcome.Report{first, second})
	if err != nil {
		t.Fatal(err)
	}
	if got.Passed || !strings.Contains(got.Interrupted, "shard 2: exit status 130") || !strings.HasPrefix(got.Verdict(), "NOT FINISHED") {
		t.Errorf("merged: passed %v, interrupted %q, verdict %q; want not passed, shard 2 not finished", got.Passed, got.Interrupted, got.Verdict())
	}
}
