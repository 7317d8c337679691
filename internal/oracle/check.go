package oracle

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/rule"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/presets/model"
)

// Disagreement is one way the implementation's outcome differs from every
// outcome the model allows.
type Disagreement struct {
	// Rules are the rules of the specification the difference shows
	// broken.
	Rules []rule.ID
	// Aspect is what of the outcome differs.
	Aspect Aspect
	// AsIf names the hypothesis that explains the difference exactly
	// ("decides exclusion otherwise"), whose rule Rules names first; ""
	// when none does.
	AsIf string
	// Summary is one line; Detail the whole difference (a pod diff, say).
	Summary, Detail string
}

// Aspect is what of an admission's outcome a disagreement is about; two
// disagreements with the same rules and aspect are one kind of fault,
// whichever request or preset showed it.
type Aspect string

// The aspects of an outcome.
const (
	// PresetRefused: the implementation's API refused a valid preset.
	PresetRefused Aspect = "a valid preset refused"
	// InvalidStored: its API stored a preset the specification refuses.
	InvalidStored Aspect = "an invalid preset stored"
	// InvalidUnnamed: its API refused an invalid preset without naming
	// the field.
	InvalidUnnamed Aspect = "an invalid preset refused without its field"
	// Admitted: a pod the model refuses was admitted.
	Admitted Aspect = "admitted"
	// Refused: a pod the model admits was refused.
	Refused Aspect = "refused"
	// Pod: the pod came out otherwise than the model makes it.
	Pod Aspect = "pod"
	// Warnings: the admission warnings differ.
	Warnings Aspect = "warnings"
	// Events: the conflict events differ; EventsMissing: none came where
	// the model records some.
	Events        Aspect = "events"
	EventsMissing Aspect = "events missing"
	// Unanswered: a request got no valid answer (R5.3).
	Unanswered Aspect = "requests unanswered"
	// Unsent: the API server admitted the pod without sending its
	// creation to the implementation: its registration leaves it out
	// (R5.4).
	Unsent Aspect = "pod creations not sent"
	// OtherRequest: a request other than a pod's creation was changed
	// or refused (R2.1, R2.6, R3.2).
	OtherRequest Aspect = "a request other than a pod's creation changed"
)

// AboutEvents reports whether an aspect is about conflict events, which
// are read only once a case has settled.
func (a Aspect) AboutEvents() bool { return a == Events || a == EventsMissing }

// Check compares what the implementation did with the model's outcomes
// under the profile and returns every disagreement; none means the case
// agrees. The events are compared only after the case settled (events);
// then the case is diagnosed too, the first hypothesis that explains it
// named in each disagreement. Before that, the caller diagnoses the case
// (Diagnose) once its events are read.
func Check(ctx context.Context, w *harness.World, obs Observed, events bool) ([]Disagreement, error) {
	if obs.PresetErr != nil {
		return []Disagreement{{Rules: []rule.ID{rule.R1_2, rule.R1_3}, Aspect: PresetRefused, Summary: "a valid preset was refused: " + oneLine(obs.PresetErr.Error()),
			Detail: obs.PresetErr.Error()}}, nil
	}
	out := InvalidDisagreements(w, obs.Invalid)
	if obs.Unsent != "" {
		out = append(out, Disagreement{Rules: []rule.ID{rule.R5_4}, Aspect: Unsent,
			Summary: "the API server admitted the pod without sending its creation to the implementation: its registration leaves it out",
			Detail:  obs.Unsent})
		// The implementation never saw the pod: nothing else is its doing.
		return out, nil
	}
	if n := len(obs.Unanswered); n > 0 {
		out = append(out, Disagreement{Rules: []rule.ID{rule.R5_3}, Aspect: Unanswered,
			Summary: fmt.Sprintf("%d admission requests got no valid answer: %s", n, oneLine(obs.Unanswered[0])),
			Detail:  strings.Join(obs.Unanswered, "\n")})
		// What the API server then did with the pod is its failure
		// policy's, not the implementation's: nothing else is judged.
		return out, nil
	}
	if !obs.Admitted() {
		return out, nil
	}
	out = append(out, ChangedDisagreements(obs.Changed)...)
	want := Expect(w, obs)
	pods := scenario.New(w) // defaults each distinct pod once
	for _, r := range []struct {
		name     string
		dryRun   bool
		outcomes []model.Outcome
		got      Request
	}{{"the dry-run create", true, want.DryRun, obs.DryRun}, {"the create", false, want.Create, obs.Create}} {
		d, err := checkRequest(ctx, w, pods, obs, r.name, r.dryRun, r.outcomes, r.got)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	if a := obs.Again; a != nil {
		later := obs.Later()
		name := fmt.Sprintf("the create of pod %q after %s %q was deleted and created again", a.Pod.Name, w.PresetKind(), a.After.Name)
		if !a.TakenUp {
			name += fmt.Sprintf(" (the implementation had not shown it in the %s propagation window)", w.Profile.Propagation())
		}
		d, err := checkRequest(ctx, w, pods, later, name, false, Expect(w, later).Create, a.Create)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	if events {
		out = append(out, EventDisagreements(w, obs)...)
		if hs := Diagnose(w, obs, out, true); len(hs) > 0 {
			for i := range out {
				if out[i].Aspect != OtherRequest {
					out[i].Explain(hs[0])
				}
			}
		}
	}
	return out, nil
}

// ChangedDisagreements are the disagreements of the requests other than
// the pod's creation that the API server did not store as sent
// (Observed.Changed): one each, credited to the rule it names.
func ChangedDisagreements(changed []error) []Disagreement {
	var out []Disagreement
	for _, err := range changed {
		var rules []rule.ID
		var u *scenario.UpdateChanged
		var o *scenario.ObjectChanged
		switch {
		case errors.As(err, &u):
			rules = u.Rules()
		case errors.As(err, &o):
			rules = []rule.ID{rule.R2_6}
		default:
			continue
		}
		out = append(out, Disagreement{Rules: rules, Aspect: OtherRequest, Summary: oneLine(err.Error()), Detail: err.Error()})
	}
	return out
}

// EventDisagreements compares a settled case's conflict events with the
// model's, when the profile claims events.
func EventDisagreements(w *harness.World, obs Observed) []Disagreement {
	if !obs.Admitted() || !w.Profile.Claims(profile.Events) || len(obs.Unanswered) > 0 {
		return nil
	}
	want := Expect(w, obs)
	if len(want.Create) == 0 {
		return nil
	}
	if d := checkEvents(obs, want); d != nil {
		return []Disagreement{*d}
	}
	return nil
}

// checkRequest compares one request with the outcomes the model allows:
// it agrees when it matches any of them, and is compared with the first
// (name order) otherwise.
func checkRequest(ctx context.Context, w *harness.World, pods *scenario.Scenario, obs Observed, name string, dryRun bool, outcomes []model.Outcome, got Request) ([]Disagreement, error) {
	if len(outcomes) == 0 {
		return nil, nil
	}
	var first *Disagreement
	for i, o := range outcomes {
		d, err := compareOutcome(ctx, w, pods, obs, name, dryRun, o, got)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, nil
		}
		if i == 0 {
			first = d
		}
	}
	if len(outcomes) > 1 {
		first.Summary += fmt.Sprintf(" (nor any of the %d orders the profile's order: unspecified allows)", len(outcomes))
	}
	return []Disagreement{*first}, nil
}

// compareOutcome compares a request with one outcome of the model.
func compareOutcome(ctx context.Context, w *harness.World, pods *scenario.Scenario, obs Observed, name string, dryRun bool, want model.Outcome, got Request) (*Disagreement, error) {
	switch {
	case want.Refused && got.Err == nil:
		return &Disagreement{Rules: []rule.ID{rule.R4_2}, Aspect: Admitted, Summary: fmt.Sprintf("%s was admitted; the profile declares conflicts: reject, and the model refuses it: %s", name, want.Message)}, nil
	case !want.Refused && got.Err != nil:
		rules, summary := refusalRules(want, obs.Pod, got.Err), fmt.Sprintf("%s was refused: %s", name, oneLine(got.Err.Error()))
		if keys := unannotatable(w, want); len(keys) > 0 && strings.Contains(got.Err.Error(), "metadata.annotations") {
			// The API server refused the pod the implementation made: the
			// key is the implementation's, and the preset's name valid.
			rules = slices.Concat([]rule.ID{rule.R6_4}, slices.DeleteFunc(rules, func(r rule.ID) bool { return r == rule.R6_4 }))
			summary = fmt.Sprintf("%s was refused: the implementation's applied annotation %s is no valid key, so a pod a preset of that name selects cannot be created — a limit of its own (R6.4): %s", name, strings.Join(keys, ", "), oneLine(got.Err.Error()))
		}
		return &Disagreement{Rules: rules, Aspect: Refused, Summary: summary, Detail: got.Err.Error()}, nil
	case want.Refused:
		return nil, nil
	}
	expected := want.Pod.DeepCopy()
	expected.Annotations = w.Profile.Annotations(expected.Annotations)
	defaulted, err := pods.Defaulted(ctx, expected)
	if err != nil {
		return nil, fmt.Errorf("unable to default the model's pod: %w", err)
	}
	if err := pods.CompareDefaulted(expected, defaulted, got.Pod); err != nil {
		var m *compare.Mismatch
		if !errors.As(err, &m) {
			return nil, err
		}
		return &Disagreement{Rules: podRules(w, obs, want, got, dryRun, m), Aspect: Pod, Summary: fmt.Sprintf("%s made another pod than the model: %s", name, firstLine(m.Error())), Detail: m.Error()}, nil
	}
	wantWarnings := modelWarnings(w, got.Pod.Namespace, want.Warnings)
	if w.Profile.Claims(profile.Warnings) && !slices.Equal(sortedCopy(wantWarnings), sortedCopy(got.Warnings)) {
		rules := []rule.ID{rule.R4_3}
		if foreign(obs, got.Warnings) {
			rules = []rule.ID{rule.R2_2}
		} else if r := unselectedMention(obs, got.Warnings, want); r != "" {
			rules = []rule.ID{r, rule.R4_3}
		}
		return &Disagreement{Rules: rules, Aspect: Warnings, Summary: fmt.Sprintf("%s returned the warnings %q; the model returns %q", name, got.Warnings, wantWarnings)}, nil
	}
	return nil, nil
}

// checkEvents compares the conflict events with the model's for the real
// create (a dry run records none, R2.1).
func checkEvents(obs Observed, want Expectation) *Disagreement {
	got := eventKeys(obs.Events)
	for _, o := range want.Create {
		if sameEvents(o.Events, obs.Events) {
			return nil
		}
	}
	expected := eventKeys(want.Create[0].Events)
	rules, aspect := []rule.ID{rule.R4_3}, Events
	if len(got) == 0 {
		aspect = EventsMissing
	}
	if foreign(obs, got) {
		return &Disagreement{Rules: []rule.ID{rule.R2_2}, Aspect: aspect, Summary: fmt.Sprintf("conflict events %q name presets of another namespace; the model records %q", got, expected)}
	}
	switch r := unselectedMention(obs, got, want.Create[0]); {
	case r != "":
		rules = []rule.ID{r, rule.R4_3} // a conflict of a preset the pod is not selected by
	case len(got) > len(expected) && len(want.DryRun) > 0 && len(want.DryRun[0].Conflicts) > 0:
		rules = []rule.ID{rule.R2_1, rule.R4_3} // the dry run's conflict recorded too, most likely
	}
	return &Disagreement{Rules: rules, Aspect: aspect, Summary: fmt.Sprintf("conflict events %q; the model records %q", got, expected)}
}

// unannotatable lists the applied annotation keys, as the profile writes
// them, of the presets the model applies that no pod may carry (a name part
// of more than 63 characters: a longer prefix than the specification's and
// a name of the longest a preset may have), each with why.
func unannotatable(w *harness.World, want model.Outcome) []string {
	var out []string
	for _, name := range want.Applied {
		key := w.Profile.AppliedKey(name)
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			out = append(out, fmt.Sprintf("%q (%s)", key, strings.Join(errs, "; ")))
		}
	}
	return out
}

// refusalRules are the rules a refusal the model does not make breaks:
// R4.2 ("admission still succeeds") when the implementation denied the
// pod; when the API server refused the pod the implementation made, R4.4
// when a mount of the submitted pod lost its volume (the pod's own volume
// taken away), else the rule the model's explanation names (a missed
// conflict made it invalid).
func refusalRules(want model.Outcome, submitted *corev1.Pod, err error) []rule.ID {
	denied := admit.Denied(err)
	switch {
	case !denied && lostOwnVolume(submitted, err):
		return []rule.ID{rule.R4_4, rule.R4_1}
	case want.Skipped == "excluded":
		return []rule.ID{rule.R2_4}
	case want.Skipped == "mirror":
		return []rule.ID{rule.R2_5}
	case denied && len(want.Conflicts) == 0 && saysConflict(err.Error()):
		// A conflict the model does not see: items the specification
		// calls identical (R3.4, compared once defaulted) or keys it keeps
		// apart (R3.5) were taken for one (R4.1).
		return []rule.ID{rule.R3_4, rule.R4_1}
	case denied:
		return []rule.ID{rule.R4_2}
	case len(want.Conflicts) > 0:
		return []rule.ID{rule.R4_1}
	}
	return []rule.ID{rule.R3_5, rule.R4_1}
}

// lostOwnVolume reports whether err is the API server's refusal of a pod
// whose volume mount names a volume the submitted pod had: a volume of the
// pod's own was taken away (R4.4).
func lostOwnVolume(submitted *corev1.Pod, err error) bool {
	if submitted == nil {
		return false
	}
	return slices.ContainsFunc(submitted.Spec.Volumes, func(v corev1.Volume) bool { return mountWithoutVolume(err, v.Name) })
}

// oneLine is the first line of a message, trimmed to 200 characters.
func oneLine(s string) string {
	s = firstLine(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// CheckAdmission compares one pod admission a scenario's step made with
// the model under the World's profile, as a case's requests are compared:
// nil when the implementation did what one of the model's outcomes does.
// The steps use it to verify a declared difference and to credit a
// failure to the rules its differences show; s is their scenario, whose
// pods already defaulted for a step's check need no second dry run.
func CheckAdmission(ctx context.Context, s *scenario.Scenario, a scenario.Admission) (*Disagreement, error) {
	w := s.World()
	obs := Observed{Presets: a.Presets, Pod: a.Pod}
	want, got := Expect(w, obs), Request{Pod: a.Returned, Err: a.Err, Warnings: a.Warnings}
	outcomes, name := want.Create, "the create"
	if a.DryRun {
		outcomes, name = want.DryRun, "the dry-run create"
	}
	ds, err := checkRequest(ctx, w, s, obs, name, a.DryRun, outcomes, got)
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	if hs := diagnose(w, obs, []request{{dryRun: a.DryRun, got: got}}, false); len(hs) > 0 {
		ds[0].Explain(hs[0])
	}
	return &ds[0], nil
}

// Explain names the hypothesis that explains the disagreement, its rule
// first.
func (d *Disagreement) Explain(h *Hypothesis) {
	if h == nil {
		return
	}
	d.AsIf = h.Name
	d.Rules = slices.Insert(slices.DeleteFunc(slices.Clone(d.Rules), func(r rule.ID) bool { return r == h.Rule }), 0, h.Rule)
	d.Summary = "behaves as if it " + h.Name + ": " + d.Summary
}
