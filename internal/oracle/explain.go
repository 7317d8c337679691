package oracle

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/presets/model"
)

// Explain returns the profile's declarations that change what the model
// makes of the scenario's admissions: each one, set back alone to the
// specification's value, gives another outcome (pod, refusal, warnings or
// events) for one of them. A check that fails while the implementation
// does exactly what the model does under the profile differs as these
// declare; when none changes anything, the failure is not declared.
func Explain(w *harness.World, admissions []scenario.Admission) []profile.Difference {
	var out []profile.Difference
	opts := w.Profile.Options()
	for _, d := range w.Profile.Declarations() {
		without := w.Profile.OptionsWithout(d.Setting)
		for _, a := range admissions {
			in := model.Admission{Presets: a.Presets, Pod: defaults.Pod(a.Pod), DryRun: a.DryRun}
			if !sameOutcomes(model.Admit(in, opts), model.Admit(in, without)) {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// sameOutcomes reports whether two lists of outcomes allow the same
// observable results: refusal, pod, warnings and events.
func sameOutcomes(a, b []model.Outcome) bool {
	within := func(x model.Outcome, list []model.Outcome) bool {
		return slices.ContainsFunc(list, func(y model.Outcome) bool {
			return x.Refused == y.Refused && equality.Semantic.DeepEqual(x.Pod, y.Pod) &&
				slices.Equal(sortedCopy(x.Warnings), sortedCopy(y.Warnings)) && slices.Equal(eventKeys(x.Events), eventKeys(y.Events))
		})
	}
	for _, x := range a {
		if !within(x, b) {
			return false
		}
	}
	for _, y := range b {
		if !within(y, a) {
			return false
		}
	}
	return true
}
