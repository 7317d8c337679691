package oracle

import (
	"slices"
	"strings"
	"testing"
)

// TestReturnedWarnings: within the API server's budget warnings come back
// whole and once each; past it, every one is cut to 256 runes, and those
// after the cut ones have filled the budget are dropped.
func TestReturnedWarnings(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"none", nil, nil},
		{"within the budget", []string{"a", "b", "a"}, []string{"a", "b"}},
		{"one long warning alone", []string{long("x", 900)}, []string{long("x", 900)}},
		{"exactly the budget", []string{long("x", 4000), long("y", 96)}, []string{long("x", 4000), long("y", 96)}},
		{"past the budget: all cut", []string{long("x", 3000), long("y", 1000), long("z", 300)},
			[]string{long("x", 256), long("y", 256), long("z", 256)}},
		{"cut ones fill the budget: the rest dropped", func() []string {
			var in []string
			for i := range 20 {
				in = append(in, string(rune('a'+i))+long("x", 400))
			}
			return in
		}(), func() []string {
			var out []string
			for i := range 16 { // 16 × 256 = 4,096: the 17th is dropped
				out = append(out, string(rune('a'+i))+long("x", 255))
			}
			return out
		}()},
		{"runes, not bytes", []string{long("é", 4000), long("é", 200)}, []string{long("é", 256), long("é", 200)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := returnedWarnings(tc.in)
			if !slices.Equal(got, tc.want) {
				t.Errorf("returnedWarnings: %d warnings %v, want %d %v", len(got), lengths(got), len(tc.want), lengths(tc.want))
			}
		})
	}
}

func lengths(texts []string) []int {
	out := make([]int, len(texts))
	for i, s := range texts {
		out[i] = len([]rune(s))
	}
	return out
}
