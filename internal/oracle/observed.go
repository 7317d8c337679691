package oracle

import (
	"regexp"
	"slices"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
)

// Observed is what the implementation under test did with a case.
type Observed struct {
	// PresetErr is set when the implementation's API refused a valid
	// preset of the case; nothing else was tried then.
	PresetErr error
	// Invalid is the case's preset that the specification refuses, if it
	// has one. When the API stored it, nothing else was tried; when the
	// API refused it, the case goes on without it.
	Invalid *InvalidPreset
	// Presets are the presets of the pod's namespace as created, with
	// their resourceVersions: the model's input.
	Presets []*v1alpha1.PodPreset
	// Others are presets of other namespaces, as created, when the case
	// has some: no admission of the pod's namespace may take them (R2.2).
	Others []*v1alpha1.PodPreset
	// Pod is the pod as submitted, with its owner when the case has one.
	Pod *corev1.Pod
	// DryRun and Create are the two requests: a server-side dry run, then
	// a real create.
	DryRun, Create Request
	// Events are the PodPresetConflict events of the pod's namespace.
	Events []conflict.Event
	// Unanswered are the case's admission requests that got no valid
	// answer from the implementation (World.FailedRequests), whatever its
	// failure policy then made of them: each fails R5.3.
	Unanswered []string
	// Unsent, when set, says why the implementation was never sent the
	// pod's creation though the API server admitted it (R5.4): what its
	// registration was found to do (World.PodCreateSent,
	// World.RegistrationFindings).
	Unsent string
	// Changed are the requests other than the pod's creation that the
	// case sent once the pod was created (an UPDATE of the pod, an
	// ephemeral container, a workload whose template is the pod) which the
	// API server did not store as sent: each is a *scenario.UpdateChanged
	// or a *scenario.ObjectChanged, and breaks the rule it names.
	Changed []error
	// Again is the case's history, when it has one: a preset changed once
	// the pod was created, then the pod's shape admitted once more (R6.1).
	Again *Again
	// Before are presets the pod's namespace held before the admission
	// and holds no more, oldest first: an earlier case's, where namespaces
	// serve case after case, and on the Observed of a later admission
	// (Later) the version a case's history replaced. A stale cache may
	// still hold them (R6.1).
	Before []*v1alpha1.PodPreset
	// expected is the model's outcome for the case, once Remember kept
	// it; Expect computes it otherwise.
	expected *Expectation
}

// Remember computes the model's outcome for the case once (its presets and
// pod are known), so that every later Expect returns it.
func (o *Observed) Remember(w *harness.World) {
	want := Expect(w, *o)
	o.expected = &want
}

// Again is what a case's history did after the pod's creation: a preset
// of the pod's namespace deleted and created again under the same name
// with another spec, then, once the implementation showed the new version
// or its propagation window had passed, the same pod under another name
// created (R6.1: only the new version is right then). Its conflict events
// are not judged (the case's are about its first pod).
type Again struct {
	// Before is the preset as it was stored before, After as created
	// again, with their resourceVersions.
	Before, After *v1alpha1.PodPreset
	// Pod is the later pod as submitted, Create its create.
	Pod    *corev1.Pod
	Create Request
	// TakenUp is false when the implementation did not show the new
	// version within the propagation window.
	TakenUp bool
}

// Later is the Observed of a case's later admission: the presets as they
// stood then, the earlier version of the one changed.
func (o Observed) Later() Observed {
	presets := slices.Clone(o.Presets)
	for i, p := range presets {
		if p.Name == o.Again.After.Name {
			presets[i] = o.Again.After
		}
	}
	return Observed{Presets: presets, Pod: o.Again.Pod, Create: o.Again.Create, Before: append(slices.Clone(o.Before), o.Again.Before)}
}

// apiServerWarning matches the warnings an API server adds of its own
// about an object's fields ("metadata.name: this is used in the Pod's
// hostname, …" for a name that is no DNS label): a field path, then the
// message.
var apiServerWarning = regexp.MustCompile(`^(metadata|spec)(\.[A-Za-z0-9_]+|\[[^\]]*\])+: `)

// ImplementationWarnings are the warnings of a response without those the
// API server adds of its own about the object's fields, which no
// implementation returns: what the model's warnings are compared with.
func ImplementationWarnings(warnings []string) []string {
	out := slices.DeleteFunc(slices.Clone(warnings), apiServerWarning.MatchString)
	if len(out) == 0 {
		return nil
	}
	return out
}

// Request is one create of the case's pod.
type Request struct {
	// Pod is what the API server returned (nil when refused), Err the
	// refusal.
	Pod      *corev1.Pod
	Err      error
	Warnings []string
	// Elsewhere is what other namespaces held while the request was
	// made, when the caller knows (R2.2: none of it may be taken).
	Elsewhere Elsewhere
}

// Elsewhere are presets of other namespaces than the pod's that the
// cluster held while a request was made: another case's, where cases run
// side by side.
type Elsewhere struct {
	// Held were stored for the whole request; Passing were created or
	// deleted meanwhile, so the implementation may or may not have seen
	// them.
	Held, Passing []*v1alpha1.PodPreset
}

// Admitted reports whether the case's pod was submitted: no valid preset
// was refused and no invalid one stored.
func (o Observed) Admitted() bool {
	return o.PresetErr == nil && (o.Invalid == nil || o.Invalid.Err != nil || o.Invalid.Unvalidated)
}

// Expectation is what the model says a case's two requests make, under
// the profile's options.
type Expectation struct {
	DryRun, Create []model.Outcome
}

// Expect runs the model on what a case submitted.
func Expect(w *harness.World, obs Observed) Expectation {
	if obs.expected != nil {
		return *obs.expected
	}
	pod := defaults.Pod(obs.Pod)
	opts := w.Profile.Options()
	return Expectation{
		DryRun: model.Admit(model.Admission{Presets: obs.Presets, Pod: pod, DryRun: true}, opts),
		Create: model.Admit(model.Admission{Presets: obs.Presets, Pod: pod}, opts),
	}
}

// EventCount is the number of events every allowed outcome records.
func (e Expectation) EventCount() int {
	if len(e.Create) == 0 {
		return 0
	}
	return len(e.Create[0].Events)
}

// Refused reports whether the model refuses the real create.
func (e Expectation) Refused() bool {
	return len(e.Create) > 0 && e.Create[0].Refused
}

// Conflicts reports whether the case has a conflict in some outcome.
func (e Expectation) Conflicts() bool {
	for _, o := range slices.Concat(e.DryRun, e.Create) {
		if len(o.Conflicts) > 0 {
			return true
		}
	}
	return false
}

// sortedCopy is a sorted copy of a list of strings.
func sortedCopy(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return out
}

// combinedPrefix is what client-go's event recorder puts before the
// message of an event it made of similar ones about one object, once more
// than ten came (record.EventCorrelator's aggregation): the messages of
// those it combined are lost, but their number is not (the event's count).
const combinedPrefix = "(combined from similar events): "

// sameEvents reports whether the events recorded are those wanted: the
// same ones; or, where the recorder combined similar events, as many, the
// others among those wanted, and the last message of each combined one
// one of those wanted too.
func sameEvents(want, got []conflict.Event) bool {
	if slices.Equal(eventKeys(want), eventKeys(got)) {
		return true
	}
	if len(want) != len(got) {
		return false
	}
	rest := map[string]int{}
	for _, e := range want {
		rest[e.Key()]++
	}
	var combined []conflict.Event
	for _, e := range got {
		if m, ok := strings.CutPrefix(e.Message, combinedPrefix); ok {
			e.Message = m
			combined = append(combined, e)
			continue
		}
		if rest[e.Key()] == 0 {
			return false
		}
		rest[e.Key()]--
	}
	if len(combined) == 0 {
		return false
	}
	for _, e := range combined {
		if rest[e.Key()] == 0 {
			return false
		}
	}
	return true
}

// eventKeys renders events for comparison, sorted.
func eventKeys(events []conflict.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Key()
	}
	slices.Sort(out)
	return out
}

// SelectedElsewhere reports whether presets of other namespaces than the
// pod's selected the pod while its requests were made: the case's own
// other namespace's, or another case's (Request.Elsewhere).
func (o Observed) SelectedElsewhere() bool {
	if o.Pod == nil {
		return false
	}
	for _, r := range []Request{o.DryRun, o.Create} {
		for _, p := range slices.Concat(o.Others, r.Elsewhere.Held, r.Elsewhere.Passing) {
			if selects(p, defaults.Pod(o.Pod)) {
				return true
			}
		}
	}
	return false
}
