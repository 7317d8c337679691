package app

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCompletion: the flags that take names complete them, and run's
// arguments complete feature files.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"backends", []string{"run", "--backend", ""}, []string{"envtest", "offline", "kind", "cluster"}},
		{"implementation kinds", []string{"fuzz", "--implementation", ""}, []string{"module", "webhook", "policy"}},
		{"modules", []string{"run", "--module", "mutant/"}, []string{"reference", "mutant/caps-presets"}},
		{"shipped profiles", []string{"run", "--profile", ""}, []string{"policy", "redhat-cop-podpreset-webhook"}},
		{"formats", []string{"run", "--format", ""}, []string{"progress", "pretty", "junit"}},
		{"feature files", []string{"run", ""}, []string{"feature", ":8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := Run(context.Background(), &out, &bytes.Buffer{}, append([]string{"__complete"}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(out.String(), "\n")
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("completing %q: %q, want it to hold %q", tc.args, got, w)
				}
			}
		})
	}
}
