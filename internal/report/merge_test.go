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
