package fuzz

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"presetsim.dev/presetsim/harness/profile"
)

// TestCopiable: a preset whose applied key, as the profile writes it, no
// pod can carry has no copy; the others keep theirs.
func TestCopiable(t *testing.T) {
	long := strings.Repeat("a", 53)
	versions := func() map[string]string { return map[string]string{"db": "7", long: "8"} }
	longer := profile.Canonical()
	longer.Spec.Annotations.Applied = "poddefault.admission.kubeflow.org/poddefault-" + profile.NamePlaceholder
	for _, tc := range []struct {
		name    string
		profile *profile.Profile
		want    []string
	}{
		{"the specification's key fits every valid name", profile.Canonical(), []string{long, "db"}},
		{"a longer prefix leaves the longest name out", longer, []string{"db"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := slices.Sorted(maps.Keys(copiable(tc.profile, versions()))); !slices.Equal(got, tc.want) {
				t.Errorf("copiable: %v, want %v", got, tc.want)
			}
		})
	}
}
