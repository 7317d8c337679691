package outcome

import (
	"encoding/json"
	"testing"
)

func TestWords(t *testing.T) {
	for _, o := range All {
		if o.Words() == "" || o.Words() == string(o) && o != Unsupported && o != Untested {
			t.Errorf("%s has no words of its own: %q", o, o.Words())
		}
	}
}

func TestWorse(t *testing.T) {
	tests := []struct {
		name       string
		a, b       Outcome
		wantAWorse bool
	}{
		{"failed is worse than differs", Failed, Differs, true},
		{"differs is worse than passed", Differs, Passed, true},
		{"passed is worse than not claimed", Passed, NotClaimed, true},
		{"unsupported is not worse than passed", Unsupported, Passed, false},
		{"an outcome is not worse than itself", Passed, Passed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Worse(tt.b); got != tt.wantAWorse {
				t.Errorf("%s.Worse(%s) = %v, want %v", tt.a, tt.b, got, tt.wantAWorse)
			}
		})
	}
}

func TestUnmarshal(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		want    Outcome
		wantErr bool
	}{
		{"a report's name", `"not-claimed"`, NotClaimed, false},
		{"the words are not the name", `"not claimed"`, "", true},
		{"unknown", `"skipped"`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Outcome
			err := json.Unmarshal([]byte(tt.json), &got)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Unmarshal(%s) = %q, %v; want %q, error %v", tt.json, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestRan(t *testing.T) {
	ran := map[Outcome]bool{Passed: true, Failed: true, Differs: true}
	for _, o := range All {
		if o.Ran() != ran[o] {
			t.Errorf("%s.Ran() = %v", o, o.Ran())
		}
	}
}

func TestCountsString(t *testing.T) {
	tests := []struct {
		name   string
		counts Counts
		want   string
	}{
		{"nothing ran", Counts{}, "0 passed, 0 failed"},
		{"all passed", Counts{Passed: 73}, "73 passed, 0 failed"},
		{"every outcome", Counts{Passed: 1, Failed: 2, Differs: 3, NotClaimed: 4, NotApplicable: 5, Unsupported: 6},
			"1 passed, 2 failed, 3 differ as declared, 4 not claimed, 5 not applicable, 6 unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.counts.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOf: a scenario's outcome is the first of failed, not applicable, not
// claimed, unsupported, differs and passed that holds.
func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Facts
		want Outcome
	}{
		{"nothing holds", Facts{}, Passed},
		{"a declared difference", Facts{Differs: true}, Differs},
		{"unsupported over differs", Facts{Unsupported: "no kubelet", Differs: true}, Unsupported},
		{"not claimed over unsupported", Facts{NotClaimed: "events", Unsupported: "no kubelet"}, NotClaimed},
		{"not applicable over not claimed", Facts{NotApplicable: "a webhook only", NotClaimed: "events"}, NotApplicable},
		{"failed over everything", Facts{Failed: true, NotApplicable: "x", NotClaimed: "y", Unsupported: "z", Differs: true}, Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.s); got != tc.want {
				t.Errorf("Of(%+v) = %s, want %s", tc.s, got, tc.want)
			}
		})
	}
}
