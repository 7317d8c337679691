package featureloc

import (
	"testing"

	messages "github.com/cucumber/messages/go/v21"
)

// TestFile: the line godog keeps in a URI given as FILE:LINE is not part
// of the file's name.
func TestFile(t *testing.T) {
	for _, c := range []struct{ uri, want string }{
		{"features/simple.feature", "features/simple.feature"},
		{"features/simple.feature:98", "features/simple.feature"},
		{"C:/odd:name.feature", "C:/odd:name.feature"},
	} {
		if got := File(c.uri); got != c.want {
			t.Errorf("File(%q) = %q, want %q", c.uri, got, c.want)
		}
	}
}

// TestLocateWithLine: a scenario run as FILE:LINE is located as in a run
// of the whole file (it was "line 0").
func TestLocateWithLine(t *testing.T) {
	l := New(nil)
	whole := l.parse("../../features/simple.feature")
	if whole.err != nil || len(whole.pickles) == 0 {
		t.Fatalf("parse: %v", whole.err)
	}
	p := *whole.pickles[0]
	p.Uri = "../../features/simple.feature:30"
	locs, err := l.Locate(&messages.Pickle{Uri: p.Uri, Name: p.Name, Steps: p.Steps})
	if err != nil {
		t.Fatal(err)
	}
	if len(locs) == 0 || locs[len(locs)-1].Line == 0 {
		t.Errorf("steps located at %+v, want their lines", locs)
	}
}
