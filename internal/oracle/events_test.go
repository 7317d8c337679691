package oracle

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/conflict"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/rule"
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

// TestCheckEventsRules: conflict events the model does not record name the
// rule their presets show broken: selection when a preset of the pod's
// namespace that does not select the pod is reported (the exclusion when
// the pod is excluded), R2.2 when another namespace's is, else reporting.
func TestCheckEventsRules(t *testing.T) {
	preset := func(ns, name string) *v1alpha1.PodPreset {
		return &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	ev := func(preset string) conflict.Event {
		return conflict.Event{Kind: "Pod", Name: "website", Type: "Warning", Reason: conflict.Reason, Message: "Conflict on pod preset " + preset + ": duplicate env PORT in container app"}
	}
	obs := Observed{Presets: []*v1alpha1.PodPreset{preset("ns", "a"), preset("ns", "b")}, Others: []*v1alpha1.PodPreset{preset("ns-peer", "c")}}
	selected := model.Outcome{Matching: []string{"a"}, Applied: []string{"a"}}
	for _, tc := range []struct {
		name   string
		events []conflict.Event
		want   model.Outcome
		rules  []rule.ID
	}{
		{"a preset that does not select the pod", []conflict.Event{ev("b")}, selected, []rule.ID{rule.R2_3, rule.R4_3}},
		{"a preset of an excluded pod", []conflict.Event{ev("a")}, model.Outcome{Skipped: "excluded"}, []rule.ID{rule.R2_4, rule.R4_3}},
		{"another namespace's preset", []conflict.Event{ev("c")}, selected, []rule.ID{rule.R2_2}},
		{"a preset that selects the pod", []conflict.Event{ev("a")}, selected, []rule.ID{rule.R4_3}},
		{"none", nil, model.Outcome{Matching: []string{"a"}, Events: []conflict.Event{ev("a")}}, []rule.ID{rule.R4_3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := obs
			o.Events = tc.events
			d := checkEvents(o, Expectation{Create: []model.Outcome{tc.want}})
			if d == nil {
				t.Fatal("no disagreement")
			}
			if !slices.Equal(d.Rules, tc.rules) {
				t.Errorf("rules %v, want %v", d.Rules, tc.rules)
			}
		})
	}
}
