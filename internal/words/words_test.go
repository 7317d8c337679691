package words

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want string
	}{
		{"none", 0, "0 pods"},
		{"one", 1, "1 pod"},
		{"several", 12, "12 pods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Count(tc.n, "pod"); got != tc.want {
				t.Errorf("Count(%d, pod) = %q, want %q", tc.n, got, tc.want)
			}
		})
	}
}

func TestAgree(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want string
	}{
		{"none", 0, "are"},
		{"one", 1, "is"},
		{"several", 2, "are"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Agree(tc.n, "is", "are"); got != tc.want {
				t.Errorf("Agree(%d) = %q, want %q", tc.n, got, tc.want)
			}
		})
	}
}
