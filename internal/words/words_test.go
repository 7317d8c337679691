package words

import "testing"

func TestCountAndAgree(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n          int
		count, isA string
	}{
		{"none", 0, "0 pods", "are"},
		{"one", 1, "1 pod", "is"},
		{"several", 12, "12 pods", "are"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Count(tc.n, "pod"); got != tc.count {
				t.Errorf("Count(%d, pod) = %q, want %q", tc.n, got, tc.count)
			}
			if got := Agree(tc.n, "is", "are"); got != tc.isA {
				t.Errorf("Agree(%d, is, are) = %q, want %q", tc.n, got, tc.isA)
			}
		})
	}
}
