package oracle

import (
	"slices"
	"testing"

	"presetsim.dev/presetsim/presets/conflict"
)

// TestSameEvents: events compare as recorded, and where client-go's
// recorder combined similar ones, by what it kept of them.
func TestSameEvents(t *testing.T) {
	ev := func(msg string) conflict.Event {
		return conflict.Event{Kind: "Pod", Name: "website", Type: "Warning", Reason: conflict.Reason, Message: msg}
	}
	combined := func(msg string) conflict.Event { return ev(combinedPrefix + msg) }
	for _, tc := range []struct {
		name      string
		want, got []conflict.Event
		same      bool
	}{
		{"the same, in another order", []conflict.Event{ev("a"), ev("b")}, []conflict.Event{ev("b"), ev("a")}, true},
		{"one missing", []conflict.Event{ev("a"), ev("b")}, []conflict.Event{ev("a")}, false},
		{"another message", []conflict.Event{ev("a")}, []conflict.Event{ev("c")}, false},
		{"the last two combined", []conflict.Event{ev("a"), ev("b"), ev("c")}, []conflict.Event{ev("a"), combined("c"), combined("c")}, true},
		{"combined, one too many", []conflict.Event{ev("a"), ev("b")}, []conflict.Event{ev("a"), combined("b"), combined("b")}, false},
		{"combined under a message not wanted", []conflict.Event{ev("a"), ev("b")}, []conflict.Event{ev("a"), combined("x")}, false},
		{"a plain one not wanted beside a combined one", []conflict.Event{ev("a"), ev("b")}, []conflict.Event{ev("x"), combined("b")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameEvents(tc.want, tc.got); got != tc.same {
				t.Errorf("sameEvents = %v, want %v", got, tc.same)
			}
		})
	}
}

// TestImplementationWarnings: the API server's own warnings about a
// field are left out; the implementation's, whatever their form, kept.
func TestImplementationWarnings(t *testing.T) {
	got := ImplementationWarnings([]string{
		"metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must be no more than 63 characters must not contain dots]",
		"spec.containers[0].ports[1]: duplicate port definition with ports[0]",
		"Conflict on pod preset b.edge: duplicate env B in container side",
		"podpresets-ns: Conflict on pod preset a: duplicate env B",
	})
	want := []string{"Conflict on pod preset b.edge: duplicate env B in container side", "podpresets-ns: Conflict on pod preset a: duplicate env B"}
	if !slices.Equal(got, want) {
		t.Errorf("ImplementationWarnings = %q, want %q", got, want)
	}
}
