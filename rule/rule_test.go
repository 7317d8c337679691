package rule

import (
	"slices"
	"testing"
)

func TestTags(t *testing.T) {
	got := Tags([]string{"@R2.4", "@events", "@R10.12", "@Rx.1", "@R1", "R3.1", "@serial", "@R2.4"})
	if want := []ID{R2_4, "R10.12"}; !slices.Equal(got, want) {
		t.Errorf("Tags = %v, want %v", got, want)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"R4.3", true}, {"R10.12", true}, {"R4", false}, {"R.3", false}, {"4.3", false}, {"R4.x", false}, {"r4.3", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if _, ok := Parse(tc.in); ok != tc.want {
				t.Errorf("Parse(%q) ok = %v, want %v", tc.in, ok, tc.want)
			}
		})
	}
}

// TestCatalogue: every rule's id is unique, reads as an id, belongs to a
// titled section and has a title.
func TestCatalogue(t *testing.T) {
	seen := map[ID]bool{}
	for _, r := range All {
		if _, ok := Parse(string(r.ID)); !ok || seen[r.ID] || r.Title == "" || Sections[r.ID.Section()] == "" {
			t.Errorf("%+v: an id that reads as one, once, with a title and a section's title", r)
		}
		seen[r.ID] = true
		if got, ok := Lookup(r.ID); !ok || got != r {
			t.Errorf("Lookup(%s) = %+v, %v", r.ID, got, ok)
		}
	}
	if Known("R9.9") {
		t.Error("R9.9 is known")
	}
}
