package oracle

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/conflict"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/rule"
)

// Hypothesis is one way an implementation may depart from the
// specification, as a variant of the model: it breaks one rule, and says
// what the implementation would make of an admission if that were its
// fault. When a disagreement is explained exactly by a hypothesis — its
// outcome is what the implementation made of the request: the same
// refusal, the same items and annotations, the same warnings and events —
// the verdict says the implementation "behaves as if" it and names its
// rule first.
//
// The hypotheses are the fault classes of the specification's rules, each
// written from the rule (selection by the wrong set of presets, exclusion
// and mirror pods read otherwise, conflicts handled otherwise, another
// order, some containers or kinds of item left out, injected items put
// first, envFrom entries compared otherwise, conflicts not reported or
// reported on dry runs, keys compared otherwise, annotations missing or
// trusted as proof, a pod already mutated mutated again, state kept from
// earlier requests or earlier versions of a preset, limits of the
// implementation's own), tried in the causal order of an admission (which pods
// are mutated, which presets are selected, what is injected, what is
// reported; diagnose says what comes first).
type Hypothesis struct {
	// Name reads after "behaves as if it": "decides exclusion otherwise".
	Name string
	// Rule is the rule the hypothesis breaks.
	Rule rule.ID
	// layer is what of an outcome the hypothesis changes first.
	layer layer
	// outcomes is what the model makes of the admission under the
	// hypothesis; nil when the hypothesis does not apply to it (it would
	// make what the specification makes).
	outcomes func(h hypothesisInput) []model.Outcome
}

// hypothesisInput is what a hypothesis reads: the admission as the model
// takes it, the options the profile declares, and what was observed.
type hypothesisInput struct {
	w    *harness.World
	a    model.Admission
	opts model.Options
	obs  Observed
	got  Request
	spec []model.Outcome
	// earlier are the requests of the same namespace before this one, in
	// the order they were sent: what a hypothesis about state over time
	// (R6) reads.
	earlier []hypothesisInput
	// later is set on a request of the case's history, whose events are
	// not judged.
	later bool
}

// layer is the part of an admission's outcome a hypothesis is about, in
// causal order: which pods and presets are selected, what is injected,
// how it is annotated, what is reported.
type layer int

const (
	// guard: hypotheses about a feature of the request itself (the exclude
	// or mirror annotation, a dry run, a pod without a name, presets of
	// other namespaces or with the empty selector), tried before the other
	// layers: when one explains a request, the feature it reads is the
	// likeliest cause.
	guard layer = iota
	selection
	injection
	annotation
	reporting
	// fallback: the generic hypothesis of a selection, which explains what
	// a more specific one explains too; tried last.
	fallback
)

// hypotheses, in the causal order of an admission.
var hypotheses = []Hypothesis{
	{"decides exclusion otherwise", rule.R2_4, guard, exclusionOtherwise},
	{"mutates mirror pods", rule.R2_5, guard, mirrorMutated},
	{"leaves server-side dry runs unmutated", rule.R2_1, guard, dryRunUnmutated},
	{"takes presets of other namespaces", rule.R2_2, guard, otherNamespaces},
	{"does not select presets with the empty selector", rule.R1_3, guard, emptySelectorsUnselected},
	{"leaves pods without a name alone", rule.R2_6, guard, unnamedUntouched},
	{"applies every preset of the namespace, whatever its selector", rule.R2_3, selection, everyPreset},
	{"applies only the last matching preset", rule.R3_6, selection, lastOnly},
	{"applies the namespace's last preset by name whenever any preset selects the pod", rule.R2_3, selection, lastListed},
	{"applies the presets that do not conflict", rule.R4_2, injection, skipsConflicting},
	{"refuses a pod with a conflict", rule.R4_2, injection, withConflicts(model.Reject)},
	{"applies every matching preset whatever conflicts", rule.R4_2, injection, withConflicts(model.Apply)},
	{"puts a conflicting item in place of the pod's own", rule.R4_4, injection, overwrites(false)},
	{"puts a conflicting item in place of the pod's own, reporting nothing", rule.R4_4, injection, overwrites(true)},
	{"trusts a preset's applied annotation", rule.R4_3, injection, annotationsTrusted},
	{"appends a preset's env vars again to a pod it already mutated", rule.R3_8, injection, reapplied},
	{"applies the presets in another order", rule.R3_6, injection, anyOrder},
	{"applies the presets one by one in another order, each unless it conflicts", rule.R3_6, injection, oneByOneInAnotherOrder},
	{"leaves init containers alone", rule.R3_2, injection, initContainersUntouched},
	{"injects into the first app container only", rule.R3_2, injection, firstContainerOnly},
	{"never injects envFrom", rule.R3_2, injection, stripped(func(s *v1alpha1.PodPresetSpec) { s.EnvFrom = nil })},
	{"never injects env", rule.R3_2, injection, stripped(func(s *v1alpha1.PodPresetSpec) { s.Env = nil })},
	{"never injects volume mounts", rule.R3_2, injection, stripped(func(s *v1alpha1.PodPresetSpec) { s.VolumeMounts = nil })},
	{"never adds volumes", rule.R3_1, injection, volumesNeverAdded},
	{"reads presets through API types that lack image volumes: one is injected as an emptyDir", rule.R3_1, injection, stripped(imageVolumesLost)},
	{"reads presets through API types that lack a mount's recursiveReadOnly: it is dropped", rule.R3_2, injection, stripped(recursiveReadOnlyLost)},
	{"reads presets through older API types: an image volume injected as an emptyDir, a mount's recursiveReadOnly dropped", rule.R3_1, injection, stripped(func(s *v1alpha1.PodPresetSpec) {
		imageVolumesLost(s)
		recursiveReadOnlyLost(s)
	})},
	{"puts injected items before the pod's own", rule.R3_3, injection, injectedFirst},
	// An identical env var appended again is the simplest explanation of
	// a duplicate: before a comparison of names without case, whose
	// variants (the pod's names folded one way) append it too.
	{"appends an env var again when the container has an identical one", rule.R3_4, injection, identicalEnvAgain},
	{"compares env var names without regard to case", rule.R3_5, injection, envNamesCased},
	{"keys envFrom entries without their prefix", rule.R3_5, injection, variant(func(v *merge.Variant) { v.EnvFromPrefixIgnored = true })},
	{"drops envFrom prefixes", rule.R3_5, injection, prefixesDropped},
	{"checks volume mounts by name only", rule.R4_1, injection, mountPathsUnchecked},
	{"never compares envFrom entries", rule.R4_1, injection, variant(func(v *merge.Variant) { v.EnvFrom = merge.EnvFromDeduplicated })},
	{"compares a preset's items with the pod's with the API server's defaults on one side only", rule.R3_4, injection, defaultsOnOneSide},
	{"appends envFrom entries again", rule.R3_4, injection, variant(func(v *merge.Variant) { v.EnvFrom = merge.EnvFromAppended })},
	{"appends envFrom entries again unless the pod had them", rule.R3_4, injection, variant(func(v *merge.Variant) { v.EnvFrom = merge.EnvFromAppendedUnlessSubmitted })},
	{"adds no applied annotation", rule.R3_7, annotation, reported(func(o *model.Outcome, _ hypothesisInput) { dropApplied(o) })},
	{"annotates the pod only when a preset added something", rule.R3_7, annotation, annotatedWhenChanged},
	{"replaces the pod's own annotations", rule.R3_7, annotation, annotationsReplaced},
	{"reports no conflict", rule.R4_3, reporting, reported(func(o *model.Outcome, _ hypothesisInput) { o.Warnings, o.Events = nil, nil })},
	{"returns no warning of a conflict", rule.R4_3, reporting, reported(func(o *model.Outcome, _ hypothesisInput) { o.Warnings = nil })},
	{"records no conflict event", rule.R4_3, reporting, reported(func(o *model.Outcome, _ hypothesisInput) { o.Events = nil })},
	{"records conflict events on pods only, never on their owner", rule.R4_3, reporting, reported(func(o *model.Outcome, _ hypothesisInput) {
		o.Events = slices.DeleteFunc(o.Events, func(e conflict.Event) bool { return e.Kind != "Pod" })
	})},
	{"records conflict events on dry runs too", rule.R2_1, reporting, eventsOnDryRun},
	{"applies the version of a preset that stood before it was created again", rule.R6_1, selection, earlierVersions},
	{"applies no more than some number of the presets that select a pod", rule.R6_4, selection, capped},
	{"writes a preset's applied annotation under its name cut at the first dot", rule.R6_4, annotation, namesCutAtDot},
	{"injects no more than some number of a preset's env vars", rule.R6_4, injection, itemsCapped},
	{"injects into no more than some number of a pod's containers", rule.R6_4, injection, containersCapped},
	{"reports a conflict only for the first pod that has it", rule.R6_3, reporting, reportedOnce},
	{"writes into the presets it read: a pod's own env vars join the presets that matched it", rule.R6_2, injection, carriesEnv},
	{"selects other presets than their selectors do", rule.R2_3, fallback, otherSelection},
}

// HypothesesInOrder are the fault classes the oracle tells apart, in
// causal order; the pointers are those Diagnose returns.
func HypothesesInOrder() []*Hypothesis {
	out := make([]*Hypothesis, len(hypotheses))
	for i := range hypotheses {
		out[i] = &hypotheses[i]
	}
	return out
}

// request is one request of an admission as observed.
type request struct {
	dryRun bool
	got    Request
	// later is set on a request of the case's history (Observed.Again),
	// which has an Observed of its own and whose events are not judged.
	later *Observed
}

// Diagnose returns the hypotheses that explain every disagreement of a
// case at once — what the implementation made of each of its requests and,
// when events is set, the conflict events it recorded — in the order they
// are tried: none when no hypothesis does, or when a disagreement is about
// the presets themselves (a valid one refused, an invalid one stored). The
// first is the case's own diagnosis; a run of many cases may name another
// of them, one that explains more of its cases (a single fault explaining
// everything is the likeliest). Explain names one in a disagreement.
func Diagnose(w *harness.World, obs Observed, ds []Disagreement, events bool) []*Hypothesis {
	ds = slices.DeleteFunc(slices.Clone(ds), func(d Disagreement) bool {
		// A request other than the pod's creation explains itself: no
		// variant of the model admits it.
		return d.Aspect == OtherRequest
	})
	if len(ds) == 0 || !obs.Admitted() || slices.ContainsFunc(ds, func(d Disagreement) bool {
		// A request that got no valid answer is its own explanation
		// (R5.3): what the API server then did with the pod is its
		// failure policy's, not the implementation's behaviour.
		return d.Aspect == PresetRefused || d.Aspect == InvalidStored || d.Aspect == InvalidUnnamed || d.Aspect == Unanswered || d.Aspect == Unsent
	}) {
		return nil
	}
	reqs := []request{{dryRun: true, got: obs.DryRun}, {got: obs.Create}}
	if obs.Again != nil {
		later := obs.Later()
		reqs = append(reqs, request{got: obs.Again.Create, later: &later})
	}
	return diagnose(w, obs, reqs, events && w.Profile.Claims(profile.Events))
}

// diagnose returns the hypotheses that explain every request, and the
// events when events is set, in the order they are tried: when only the
// annotations or only the reports depart from the specification, the
// hypotheses of that layer; then the guard's; then the rest in causal
// order, the generic selection last.
func diagnose(w *harness.World, obs Observed, reqs []request, events bool) []*Hypothesis {
	ins := make([]hypothesisInput, len(reqs))
	for i, r := range reqs {
		if r.later != nil {
			ins[i] = newHypothesisInput(w, *r.later, r.dryRun, r.got)
			ins[i].later = true
		} else {
			ins[i] = newHypothesisInput(w, obs, r.dryRun, r.got)
		}
		ins[i].earlier = ins[:i]
	}
	first := departure(w, ins)
	rank := func(h Hypothesis) int {
		switch {
		case h.layer == first && first >= annotation:
			return 0 // only annotations or reports differ: theirs first
		case h.layer == guard:
			return 1
		case h.layer == fallback:
			return 3
		}
		return 2
	}
	order := slices.SortedStableFunc(slices.Values(indexes(len(hypotheses))), func(a, b int) int {
		return rank(hypotheses[a]) - rank(hypotheses[b])
	})
	var out []*Hypothesis
	for _, i := range order {
		h := &hypotheses[i]
		if h.layer == fallback && slices.ContainsFunc(out, func(h *Hypothesis) bool { return h.Rule.Section() != "R6" }) {
			// It would explain what those do, at the cost of every set of
			// presets. (After hypotheses about state over time alone, which
			// a namespace's history may explain by chance, it is tried: a
			// run credits a case two explain to the one that explains more
			// of its cases.)
			break
		}
		if h.explainsAll(w, obs, ins, events) {
			out = append(out, h)
		}
	}
	// Presets of other namespaces are an explanation of last resort: with
	// so many of them (another case's, a namespace's history) one may
	// conflict with the pod by chance, where a fault of the namespace's own
	// presets explains the same requests.
	if i := slices.IndexFunc(out, func(h *Hypothesis) bool { return h.Rule == rule.R2_2 }); i >= 0 && len(out) > 1 {
		foreign := out[i]
		out = append(slices.Delete(out, i, i+1), foreign)
	}
	return out
}

// explainsAll reports whether the hypothesis explains every request, and
// the events when events is set, with an outcome of its own: one the
// specification does not make (a hypothesis explains nothing by agreeing
// with the specification where the implementation does).
func (h *Hypothesis) explainsAll(w *harness.World, obs Observed, ins []hypothesisInput, events bool) bool {
	explaining := make([][]model.Outcome, len(ins))
	own := false
	for i, in := range ins {
		outs := h.outcomes(in)
		if len(outs) == 0 {
			outs = in.spec
		}
		for _, o := range outs {
			if !explains(w, o, in.got) {
				continue
			}
			explaining[i] = append(explaining[i], o)
			own = own || !slices.ContainsFunc(in.spec, func(x model.Outcome) bool { return sameOutcomes([]model.Outcome{o}, []model.Outcome{x}) })
		}
		if len(explaining[i]) == 0 {
			return false
		}
	}
	if !events {
		return own
	}
	// The events of the case: what its dry run and its create recorded.
	// Of a pod the API server refused once the implementation had made it
	// (an invalid pod), the events are the outcome's or none: the pod they
	// are about never existed.
	recorded := func(per [][]model.Outcome) bool {
		var combine func(i int, acc []conflict.Event) bool
		combine = func(i int, acc []conflict.Event) bool {
			if i == len(per) {
				return sameEvents(acc, obs.Events)
			}
			if ins[i].later {
				return combine(i+1, acc)
			}
			if slices.ContainsFunc(per[i], func(o model.Outcome) bool { return combine(i+1, slices.Concat(acc, o.Events)) }) {
				return true
			}
			return ins[i].got.Err != nil && invalidPod(ins[i].got.Err) && combine(i+1, acc)
		}
		return combine(0, nil)
	}
	if !recorded(explaining) {
		return false
	}
	specs := make([][]model.Outcome, len(ins))
	for i, in := range ins {
		specs[i] = in.spec
	}
	return own || !recorded(specs)
}

// departure is the layer where what the implementation made first departs
// from the specification: reporting when its pods are the specification's,
// annotation when only their annotations differ, selection otherwise.
func departure(w *harness.World, ins []hypothesisInput) layer {
	items, annotations := true, true
	for _, in := range ins {
		if in.got.Err != nil || len(in.spec) == 0 || in.spec[0].Refused {
			return selection
		}
		want := defaults.Pod(in.spec[0].Pod)
		want.Annotations = w.Profile.Annotations(want.Annotations)
		got := defaults.Pod(compare.Normalize(in.got.Pod))
		annotations = annotations && equality.Semantic.DeepEqual(nonEmpty(want.Annotations), nonEmpty(got.Annotations))
		want.Annotations, got.Annotations = nil, nil
		items = items && samePodItems(want, got)
	}
	switch {
	case items && annotations:
		return reporting
	case items:
		return annotation
	}
	return selection
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// newHypothesisInput is what the hypotheses read of one request.
func newHypothesisInput(w *harness.World, obs Observed, dryRun bool, got Request) hypothesisInput {
	in := hypothesisInput{
		w:    w,
		a:    model.Admission{Presets: obs.Presets, Pod: defaults.Pod(obs.Pod), DryRun: dryRun},
		opts: w.Profile.Options(),
		obs:  obs,
		got:  got,
	}
	// The specification's outcome, as the comparison computed it (Expect
	// keeps it for a case once its presets and pod are known).
	want := Expect(w, obs)
	in.spec = want.Create
	if dryRun {
		in.spec = want.DryRun
	}
	return in
}

// explains reports whether an outcome is what the implementation made of a
// request: a refusal of the implementation's for a refused outcome, the
// API server's refusal of the invalid pod an outcome makes, or the same
// annotations and items and the same warnings (when claimed).
func explains(w *harness.World, o model.Outcome, got Request) bool {
	if got.Err != nil && !o.Refused && o.Pod != nil {
		// The API server refuses the pod an outcome makes when no pod may
		// be so (a mount whose volume is missing): the outcome explains
		// the refusal that names it.
		return refusedAsMade(o.Pod, got.Err)
	}
	if o.Refused || got.Err != nil {
		// The implementation's refusal, not the API server's of an
		// invalid pod.
		return o.Refused && got.Err != nil && !invalidPod(got.Err)
	}
	want := defaults.Pod(o.Pod)
	want.Annotations = w.Profile.Annotations(want.Annotations)
	if !samePodItems(want, defaults.Pod(compare.Normalize(got.Pod))) {
		return false
	}
	if !w.Profile.Claims(profile.Warnings) {
		return true
	}
	return slices.Equal(sortedCopy(modelWarnings(w, got.Pod.Namespace, o.Warnings)), sortedCopy(got.Warnings))
}

// invalidPod reports whether err is the API server's refusal of an
// invalid object, as it returns it or as a scenario words it.
func invalidPod(err error) bool {
	return apierrors.IsInvalid(err) || strings.Contains(err.Error(), " is invalid: ")
}

// refusedAsMade reports whether err is the API server's refusal of pod
// for what the pod itself breaks, as pod validation words it: a volume
// mount that names no volume of the pod (the mount's name not found), two
// mounts of a container at one path (the path must be unique), two volumes
// of one name (a duplicate value).
func refusedAsMade(pod *corev1.Pod, err error) bool {
	if !invalidPod(err) {
		return false
	}
	msg := err.Error()
	volumes := map[string]bool{}
	for _, v := range pod.Spec.Volumes {
		if volumes[v.Name] && strings.Contains(msg, "volumes") && strings.Contains(msg, "Duplicate value: "+strconv.Quote(v.Name)) {
			return true
		}
		volumes[v.Name] = true
	}
	for _, c := range containers(pod) {
		paths := map[string]bool{}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] && mountWithoutVolume(err, m.Name) {
				return true
			}
			if paths[m.MountPath] && strings.Contains(msg, "mountPath: Invalid value: "+strconv.Quote(m.MountPath)+": must be unique") {
				return true
			}
			paths[m.MountPath] = true
		}
	}
	return false
}

// mountWithoutVolume reports whether err is the API server's refusal of a
// pod with a volume mount that names volume, which the pod lacks (pod
// validation: the mount's name not found).
func mountWithoutVolume(err error, volume string) bool {
	msg := err.Error()
	return invalidPod(err) && strings.Contains(msg, "volumeMounts") && strings.Contains(msg, "Not found: "+strconv.Quote(volume))
}

// samePodItems compares what presets act on: the annotations, the volumes
// and every container's env, envFrom and volume mounts, in order.
func samePodItems(want, got *corev1.Pod) bool {
	if !equality.Semantic.DeepEqual(nonEmpty(want.Annotations), nonEmpty(got.Annotations)) ||
		!equality.Semantic.DeepEqual(want.Spec.Volumes, got.Spec.Volumes) {
		return false
	}
	sameContainers := func(a, b []corev1.Container) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i].Name != b[i].Name || !equality.Semantic.DeepEqual(a[i].Env, b[i].Env) ||
				!equality.Semantic.DeepEqual(a[i].EnvFrom, b[i].EnvFrom) || !equality.Semantic.DeepEqual(a[i].VolumeMounts, b[i].VolumeMounts) {
				return false
			}
		}
		return true
	}
	return sameContainers(want.Spec.InitContainers, got.Spec.InitContainers) && sameContainers(want.Spec.Containers, got.Spec.Containers)
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// withAnnotation runs the model on the pod with an annotation set (value
// non-nil) or removed, and puts the pod's own back on each outcome.
func withAnnotation(h hypothesisInput, key string, value *string) []model.Outcome {
	a := h.a
	a.Pod = a.Pod.DeepCopy()
	if value == nil {
		delete(a.Pod.Annotations, key)
	} else {
		if a.Pod.Annotations == nil {
			a.Pod.Annotations = map[string]string{}
		}
		a.Pod.Annotations[key] = *value
	}
	out := model.Admit(a, h.opts)
	own, had := h.a.Pod.Annotations[key]
	for i := range out {
		if p := out[i].Pod; p != nil {
			if had {
				p.Annotations[key] = own
			} else {
				delete(p.Annotations, key)
			}
		}
	}
	return out
}

// exclusionOtherwise: a pod that carries the exclude annotation is
// excluded when the specification mutates it (any value, another case) or
// mutated when it excludes it (R2.4).
func exclusionOtherwise(h hypothesisInput) []model.Outcome {
	v, ok := h.a.Pod.Annotations[merge.ExcludeAnnotation]
	switch {
	case !ok:
		return nil
	case v == "true":
		return withAnnotation(h, merge.ExcludeAnnotation, nil)
	}
	t := "true"
	return withAnnotation(h, merge.ExcludeAnnotation, &t)
}

// mirrorMutated: a mirror pod mutated like any other (R2.5).
func mirrorMutated(h hypothesisInput) []model.Outcome {
	if _, ok := h.a.Pod.Annotations[admission.MirrorPodAnnotation]; !ok {
		return nil
	}
	return withAnnotation(h, admission.MirrorPodAnnotation, nil)
}

// dryRunUnmutated: a server-side dry run admitted as submitted (R2.1).
func dryRunUnmutated(h hypothesisInput) []model.Outcome {
	if !h.a.DryRun {
		return nil
	}
	return []model.Outcome{{Pod: h.a.Pod.DeepCopy()}}
}

// selecting is the model's outcomes when exactly the named presets of the
// pod's namespace select the pod.
func selecting(h hypothesisInput, names []string) []model.Outcome {
	var presets []*v1alpha1.PodPreset
	for _, p := range h.obs.Presets {
		if slices.Contains(names, p.Name) {
			presets = append(presets, p)
		}
	}
	return selectingPresets(h, presets)
}

// selectingPresets is the model's outcomes when exactly these presets
// select the pod. The guard (R2.4, R2.5) stays the specification's: the
// model applies nothing to an excluded or mirror pod, whatever selects it.
func selectingPresets(h hypothesisInput, presets []*v1alpha1.PodPreset) []model.Outcome {
	a := h.a
	a.Presets = make([]*v1alpha1.PodPreset, len(presets))
	for i, p := range presets {
		q := p.DeepCopy()
		q.Spec.Selector = metav1.LabelSelector{}
		a.Presets[i] = q
	}
	return model.Admit(a, h.opts)
}

// matching are the presets that select the pod in the specification's
// outcome.
func (h hypothesisInput) matching() []string {
	if len(h.spec) == 0 {
		return nil
	}
	return h.spec[0].Matching
}

// selectedNames are the sets of presets the implementation may have
// selected: those whose applied annotation the pod got; with the presets
// its warnings and events name; with those the specification selects too;
// every preset of the namespace; and, when it has few, every other set.
func (h hypothesisInput) selectedNames() [][]string {
	applied := appliedNames(h.w, h.got)
	var texts []string
	texts = append(texts, h.got.Warnings...)
	for _, e := range h.obs.Events {
		texts = append(texts, e.Message)
	}
	named := slices.Clone(applied)
	for _, n := range conflict.Mentions(texts) {
		if !slices.Contains(named, n) {
			named = append(named, n)
		}
	}
	withMatching := slices.Clone(named)
	for _, n := range h.matching() {
		if !slices.Contains(withMatching, n) {
			withMatching = append(withMatching, n)
		}
	}
	var all []string
	for _, p := range h.obs.Presets {
		all = append(all, p.Name)
	}
	var out [][]string
	for _, names := range [][]string{applied, named, withMatching, all} {
		if !slices.ContainsFunc(out, func(x []string) bool { return sameSet(x, names) }) {
			out = append(out, names)
		}
	}
	if len(all) > maxSubsetPresets {
		return out
	}
	// Few presets: every other set of them, so that a selection whose
	// mark on the pod is indirect (a preset that conflicts with no item but
	// takes a key a later one conflicts on) is found too.
	for mask := 0; mask < 1<<len(all); mask++ {
		var names []string
		for i, n := range all {
			if mask&(1<<i) != 0 {
				names = append(names, n)
			}
		}
		if !slices.ContainsFunc(out, func(x []string) bool { return sameSet(x, names) }) {
			out = append(out, names)
		}
	}
	return out
}

// maxSubsetPresets bounds the namespaces whose every set of presets a
// selection hypothesis tries (2^8 model runs, for a disagreeing case only).
const maxSubsetPresets = 8

// sameSet reports whether two lists hold the same names.
func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x string) bool { return !slices.Contains(b, x) })
}

// otherNamespaces: the presets of other namespaces that select the pod
// taken as well (R2.2), whatever their names: the case's own other
// namespace's, and those other cases held meanwhile (Request.Elsewhere),
// with or without the ones created or deleted during the request.
func otherNamespaces(h hypothesisInput) []model.Outcome {
	var own []*v1alpha1.PodPreset
	for _, p := range h.obs.Presets {
		if slices.Contains(h.matching(), p.Name) {
			own = append(own, p)
		}
	}
	if !foreignTrace(h) {
		return nil
	}
	var out []model.Outcome
	tried := -1
	for _, others := range [][]*v1alpha1.PodPreset{
		slices.Concat(h.obs.Others, h.got.Elsewhere.Held),
		slices.Concat(h.obs.Others, h.got.Elsewhere.Held, h.got.Elsewhere.Passing),
	} {
		presets := slices.Clone(own)
		for _, p := range others {
			if selects(p, h.a.Pod) {
				presets = append(presets, p)
			}
		}
		if len(presets) == len(own) || len(presets) == tried {
			continue
		}
		tried = len(presets)
		for _, order := range tieOrders(presets) {
			outs := selectingPresets(h, order)
			out = append(out, outs...)
			if slices.ContainsFunc(outs, func(o model.Outcome) bool { return explains(h.w, o, h.got) }) {
				// The first order that makes what the request got is
				// enough: the others cost a merge each.
				return out
			}
		}
	}
	return out
}

// foreignTrace reports whether the request shows something no preset of
// the pod's namespace that selects it accounts for: warnings other than the
// specification's, or an applied annotation of another name, or of another
// resourceVersion than that preset's. Without one, presets of other
// namespaces explain nothing the specification does not (short of an item
// injected unreported and unannotated), and trying them costs a merge each.
func foreignTrace(h hypothesisInput) bool {
	if h.got.Pod == nil || len(h.spec) == 0 {
		return true
	}
	if !slices.Equal(sortedCopy(h.spec[0].Warnings), sortedCopy(h.got.Warnings)) {
		return true
	}
	versions := map[string]string{}
	for _, p := range h.obs.Presets {
		if slices.Contains(h.matching(), p.Name) {
			versions[p.Name] = p.ResourceVersion
		}
	}
	for _, name := range appliedNames(h.w, h.got) {
		rv, own := versions[name]
		if !own || h.got.Pod.Annotations[h.w.Profile.AppliedPrefix()+name] != rv {
			return true
		}
	}
	return false
}

// maxTieOrders bounds the orders tieOrders returns.
const maxTieOrders = 6

// tieOrders are the presets sorted by name, in each order of those that
// share a name (of several namespaces): the order an implementation lists
// them in, which nothing fixes, decides which comes first in the merge and
// in its report. At most maxTieOrders.
func tieOrders(presets []*v1alpha1.PodPreset) [][]*v1alpha1.PodPreset {
	sorted := slices.Clone(presets)
	slices.SortStableFunc(sorted, func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })
	orders := [][]*v1alpha1.PodPreset{nil}
	for start := 0; start < len(sorted); {
		end := start + 1
		for end < len(sorted) && sorted[end].Name == sorted[start].Name {
			end++
		}
		group := sorted[start:end]
		backward := slices.Clone(group)
		slices.Reverse(backward)
		ways := [][]*v1alpha1.PodPreset{group, backward}
		if len(group) <= 4 {
			ways = model.Permutations(group)
		}
		var next [][]*v1alpha1.PodPreset
		for _, o := range orders {
			for _, g := range ways {
				if len(next) < maxTieOrders {
					next = append(next, slices.Concat(o, g))
				}
			}
		}
		orders, start = next, end
	}
	return orders
}

// selects reports whether a preset's selector selects the pod.
func selects(p *v1alpha1.PodPreset, pod *corev1.Pod) bool {
	matching, _ := merge.Select(pod, []*v1alpha1.PodPreset{p})
	return len(matching) == 1
}

// emptySelectorsUnselected: the presets with the empty selector select
// nothing (R1.3: {} selects every pod).
func emptySelectorsUnselected(h hypothesisInput) []model.Outcome {
	names := slices.DeleteFunc(slices.Clone(h.matching()), func(name string) bool { return emptySelector(h.obs, name) })
	if len(names) == len(h.matching()) {
		return nil
	}
	return selecting(h, names)
}

// unnamedUntouched: a pod without a name (a controller's, with a
// generateName) left alone (R2.6).
func unnamedUntouched(h hypothesisInput) []model.Outcome {
	if h.a.Pod.Name != "" || len(h.matching()) == 0 {
		return nil
	}
	return selecting(h, nil)
}

// lastOnly: only the last matching preset applied (R3.6).
func lastOnly(h hypothesisInput) []model.Outcome {
	m := h.matching()
	if len(m) < 2 {
		return nil
	}
	return selecting(h, m[len(m)-1:])
}

// everyPreset: every preset of the pod's namespace applied, whatever its
// selector (R2.3).
func everyPreset(h hypothesisInput) []model.Outcome {
	var names []string
	for _, p := range h.obs.Presets {
		names = append(names, p.Name)
	}
	if len(names) == len(h.matching()) {
		return nil
	}
	return selecting(h, names)
}

// lastListed: when any preset selects the pod, the namespace's last
// preset by name applied in their place, whatever its selector (R2.3; a
// loop that keeps its variable's address does this).
func lastListed(h hypothesisInput) []model.Outcome {
	m := h.matching()
	if len(m) == 0 || len(h.obs.Presets) == 0 {
		return nil
	}
	last := slices.MaxFunc(h.obs.Presets, func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) }).Name
	if slices.Equal(m, []string{last}) {
		return nil
	}
	return selecting(h, []string{last})
}

// otherSelection: the presets the implementation shows it selected, by its
// annotations and the presets its reports name, applied as the
// specification says (R2.3).
func otherSelection(h hypothesisInput) []model.Outcome {
	var out []model.Outcome
	for _, names := range h.selectedNames() {
		out = append(out, selecting(h, names)...)
	}
	return out
}

// withConflicts: conflicts handled as another value of the profile's
// conflicts setting does (R4.2), when the specification's outcome has one.
// A refusal may come before the guard: a pod the specification leaves
// alone (excluded, mirror) is refused for the conflicts it would have.
func withConflicts(c model.Conflicts) func(hypothesisInput) []model.Outcome {
	return func(h hypothesisInput) []model.Outcome {
		if h.opts.Conflicts == c {
			return nil
		}
		o := h.opts
		o.Conflicts = c
		if slices.ContainsFunc(h.spec, func(o model.Outcome) bool { return len(o.Conflicts) > 0 }) {
			return model.Admit(h.a, o)
		}
		if c != model.Reject || len(h.spec) == 0 || h.spec[0].Skipped == "" {
			return nil
		}
		a := h.a
		a.Pod = a.Pod.DeepCopy()
		delete(a.Pod.Annotations, merge.ExcludeAnnotation)
		delete(a.Pod.Annotations, admission.MirrorPodAnnotation)
		out := model.Admit(a, o)
		if !slices.ContainsFunc(out, func(x model.Outcome) bool { return x.Refused }) {
			return nil
		}
		return out
	}
}

// skipsConflicting: the presets that conflict are skipped and the others
// applied (model.SkipPreset), the conflicts reported as that model finds
// them, one preset after the other, or as the specification reports them,
// found with every matching preset at once: an implementation that checks
// the presets first, then applies those that passed, reports so.
func skipsConflicting(h hypothesisInput) []model.Outcome {
	out := withConflicts(model.SkipPreset)(h)
	if len(h.spec) == 0 {
		return out
	}
	spec := h.spec[0]
	for _, o := range slices.Clone(out) {
		if o.Refused || o.Pod == nil {
			continue
		}
		o.Conflicts, o.Warnings, o.Events = spec.Conflicts, spec.Warnings, spec.Events
		out = append(out, o)
	}
	return out
}

// annotationsTrusted: a preset whose applied annotation the pod carries at
// the preset's version is taken as applied already and skipped (R4.3: a
// copied pod's conflicts with it go unreported).
func annotationsTrusted(h hypothesisInput) []model.Outcome {
	a := h.a
	a.Presets = slices.DeleteFunc(slices.Clone(a.Presets), func(p *v1alpha1.PodPreset) bool {
		v, ok := h.a.Pod.Annotations[merge.AnnotationKey(p.Name)]
		return ok && v == p.ResourceVersion
	})
	if len(a.Presets) == len(h.a.Presets) {
		return nil
	}
	return model.Admit(a, h.opts)
}

// reapplied: a preset whose selector matches a pod that already carries
// its applied annotation at its resourceVersion — what the API server
// sends a webhook it reinvokes — has its env vars appended again to every
// container, after the specification's outcome and whatever it was (a
// conflict too), as a webhook that never expects to see its own output
// does (R3.8).
func reapplied(h hypothesisInput) []model.Outcome {
	matching, _ := merge.Select(h.a.Pod, h.a.Presets) // what it can read
	var again []corev1.EnvVar
	for _, p := range matching {
		if v, ok := h.a.Pod.Annotations[merge.AnnotationKey(p.Name)]; ok && v == p.ResourceVersion {
			again = append(again, p.Spec.Env...)
		}
	}
	if len(again) == 0 {
		return nil
	}
	return reported(func(o *model.Outcome, _ hypothesisInput) {
		if o.Pod == nil {
			return
		}
		for _, c := range containers(o.Pod) {
			c.Env = append(c.Env, again...)
		}
	})(h)
}

// earlierVersions: a preset of a name the namespace held before in
// another version (deleted and created again) applied as that version —
// its spec and its resourceVersion — as an implementation whose cache
// keys presets by name and keeps the first object it saw (the first
// version), or lags (the last one before), does (R6.1).
func earlierVersions(h hypothesisInput) []model.Outcome {
	var out []model.Outcome
	for _, last := range []bool{false, true} {
		a := h.a
		a.Presets = slices.Clone(h.a.Presets)
		var stale []string
		for i, p := range a.Presets {
			var versions []*v1alpha1.PodPreset
			for _, q := range h.obs.Before {
				if q.Name == p.Name && q.ResourceVersion != p.ResourceVersion {
					versions = append(versions, q)
				}
			}
			switch {
			case len(versions) == 0:
				continue
			case last:
				a.Presets[i] = versions[len(versions)-1]
			default:
				a.Presets[i] = versions[0]
			}
			stale = append(stale, p.Name)
		}
		if len(stale) > 0 {
			out = append(out, model.Admit(a, h.opts)...)
		}
	}
	return out
}

// capped: of the presets that select a pod, only the first n by name
// applied, for some n at least half of them, as an implementation with a
// table of fixed size does (R6.4). Tried when five or more select it.
func capped(h hypothesisInput) []model.Outcome {
	matching := h.matching()
	if len(matching) < 5 {
		return nil
	}
	names := slices.Sorted(slices.Values(matching))
	var out []model.Outcome
	for n := len(names) - 1; n >= len(names)/2; n-- {
		out = append(out, selecting(h, names[:n])...)
	}
	return out
}

// itemsCapped: of each preset's env vars, only the first n injected, for
// some n at least half of the longest preset's, as an implementation with
// a buffer of fixed size does (R6.4). Tried when a preset has ten or more.
func itemsCapped(h hypothesisInput) []model.Outcome {
	longest := 0
	for _, p := range h.a.Presets {
		longest = max(longest, len(p.Spec.Env))
	}
	if longest < 10 {
		return nil
	}
	var out []model.Outcome
	for n := longest - 1; n >= longest/2; n-- {
		a := h.a
		a.Presets = make([]*v1alpha1.PodPreset, len(h.a.Presets))
		for i, p := range h.a.Presets {
			if a.Presets[i] = p; len(p.Spec.Env) > n {
				a.Presets[i] = p.DeepCopy()
				a.Presets[i].Spec.Env = a.Presets[i].Spec.Env[:n]
			}
		}
		out = append(out, model.Admit(a, h.opts)...)
	}
	return out
}

// containersCapped: the specification's outcome with the containers past
// the first n (init containers first) as submitted, for some n from one
// less than the pod has down to two, as an implementation with an array of
// fixed size does (R6.4); one container only is firstContainerOnly's
// (R3.2). Tried when a pod has three containers or more.
func containersCapped(h hypothesisInput) []model.Outcome {
	submitted := containers(h.a.Pod)
	if len(submitted) < 3 {
		return nil
	}
	var out []model.Outcome
	for n := len(submitted) - 1; n >= 2; n-- {
		out = append(out, reported(func(o *model.Outcome, _ hypothesisInput) {
			if o.Pod == nil {
				return
			}
			for i, c := range containers(o.Pod) {
				if i >= n && i < len(submitted) {
					*c = *submitted[i].DeepCopy()
				}
			}
		})(h)...)
	}
	return out
}

// namesCutAtDot: the applied annotation of a preset that selects the pod
// and whose name holds a dot — the one it adds, or the pod's own —
// written under the name up to the dot (R6.4).
func namesCutAtDot(h hypothesisInput) []model.Outcome {
	matching, _ := merge.Select(h.a.Pod, h.a.Presets) // what it can read
	if !slices.ContainsFunc(matching, func(p *v1alpha1.PodPreset) bool { return strings.Contains(p.Name, ".") }) {
		return nil
	}
	return reported(func(o *model.Outcome, _ hypothesisInput) {
		if o.Pod == nil {
			return
		}
		for _, p := range matching {
			name := p.Name
			short, _, dotted := strings.Cut(name, ".")
			key := merge.AnnotationKey(name)
			if v, ok := o.Pod.Annotations[key]; ok && dotted {
				delete(o.Pod.Annotations, key)
				o.Pod.Annotations[merge.AnnotationKey(short)] = v
			}
		}
	})(h)
}

// reportedOnce: a conflict reported for the first request of the
// namespace that has it, and for no later one with the same conflict,
// which is admitted as the specification says but unwarned, with no event
// (R6.3).
func reportedOnce(h hypothesisInput) []model.Outcome {
	if len(h.spec) == 0 || len(h.spec[0].Warnings) == 0 || !slices.ContainsFunc(h.earlier, func(e hypothesisInput) bool {
		return len(e.spec) > 0 && slices.Equal(e.spec[0].Warnings, h.spec[0].Warnings)
	}) {
		return nil
	}
	return reported(func(o *model.Outcome, _ hypothesisInput) { o.Warnings, o.Events = nil, nil })(h)
}

// carriesEnv: an implementation that merges into the presets it holds —
// its cache's objects — rather than into copies: the env vars of every
// pod admitted before, in every container, join each preset whose
// selector matched that pod (those of names the preset lacks, first
// seen first), and the request is admitted with the presets so changed
// (R6.2).
func carriesEnv(h hypothesisInput) []model.Outcome {
	a, changed := h.a, false
	a.Presets = make([]*v1alpha1.PodPreset, len(h.a.Presets))
	for i, p := range h.a.Presets {
		a.Presets[i] = p
		var extra []corev1.EnvVar
		known := func(name string) bool {
			has := func(e corev1.EnvVar) bool { return e.Name == name }
			return slices.ContainsFunc(p.Spec.Env, has) || slices.ContainsFunc(extra, has)
		}
		for _, e := range h.earlier {
			if e.got.Err != nil || !slices.ContainsFunc(e.a.Presets, func(q *v1alpha1.PodPreset) bool { return q.Name == p.Name && q.ResourceVersion == p.ResourceVersion }) {
				continue // refused, or another version of the preset: nothing was merged into this one
			}
			if matched, _ := merge.Select(e.a.Pod, []*v1alpha1.PodPreset{p}); len(matched) == 0 {
				continue
			}
			for _, c := range containers(e.a.Pod) {
				for _, env := range c.Env {
					if !known(env.Name) {
						extra = append(extra, env)
					}
				}
			}
		}
		if len(extra) > 0 {
			a.Presets[i] = p.DeepCopy()
			a.Presets[i].Spec.Env = append(a.Presets[i].Spec.Env, extra...)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return model.Admit(a, h.opts)
}

// anyOrder: the matching presets applied in some other order (R3.6).
func anyOrder(h hypothesisInput) []model.Outcome {
	if len(h.matching()) < 2 || h.opts.Order == model.Unspecified {
		return nil
	}
	o := h.opts
	o.Order = model.Unspecified
	return model.Admit(h.a, o)
}

// oneByOneInAnotherOrder: the matching presets applied one after the
// other in some order, each skipped when it conflicts with the pod as the
// earlier ones left it (R3.6, and R4.2 with it). Its outcomes include name
// order's, which "applies the presets that do not conflict" (R4.2 alone)
// makes too: a run credits the cases both explain to the one that explains
// more of them, this one only when other orders show.
func oneByOneInAnotherOrder(h hypothesisInput) []model.Outcome {
	if len(h.matching()) < 2 || h.opts.Order == model.Unspecified || h.opts.Conflicts == model.SkipPreset {
		return nil
	}
	o := h.opts
	o.Order, o.Conflicts = model.Unspecified, model.SkipPreset
	return model.Admit(h.a, o)
}

// variant: items compared or injected as a variant of the merge does.
func variant(set func(*merge.Variant)) func(hypothesisInput) []model.Outcome {
	return func(h hypothesisInput) []model.Outcome {
		o := h.opts
		set(&o.Variant)
		if o.Variant == h.opts.Variant {
			return nil
		}
		return model.Admit(h.a, o)
	}
}

// envNamesCased: env var names compared without regard to case (R3.5),
// as a merge that folds both names does (merge.Variant.EnvNamesFolded), or
// as one that upper- or lower-cases the pod's own names before it compares
// them (its conflicts then name the item as cased).
func envNamesCased(h hypothesisInput) []model.Outcome {
	out := variant(func(v *merge.Variant) { v.EnvNamesFolded = true })(h)
	for _, fold := range []func(string) string{strings.ToUpper, strings.ToLower} {
		out = append(out, ownItemsMasked(h, func(pod *corev1.Pod) {
			for _, c := range containers(pod) {
				for j := range c.Env {
					c.Env[j].Name = fold(c.Env[j].Name)
				}
			}
		})...)
	}
	return out
}

// mountPathsUnchecked: volume mounts keyed by their name alone (R4.1), as
// a merge whose keys omit the path does (merge.Variant.MountPathsUnkeyed),
// or as one that checks only the pod's own mounts by name: one of them at
// a path a matching preset mounts another volume at is passed over.
func mountPathsUnchecked(h hypothesisInput) []model.Outcome {
	out := variant(func(v *merge.Variant) { v.MountPathsUnkeyed = true })(h)
	masked := ownItemsMasked(h, func(pod *corev1.Pod) {
		for _, c := range containers(pod) {
			for j, m := range c.VolumeMounts {
				for _, p := range h.a.Presets {
					if slices.Contains(h.matching(), p.Name) && slices.ContainsFunc(p.Spec.VolumeMounts, func(x corev1.VolumeMount) bool { return x.MountPath == m.MountPath && x.Name != m.Name }) {
						c.VolumeMounts[j].MountPath = "/presetsim-unchecked/" + strconv.Itoa(j)
					}
				}
			}
		}
	})
	if masked == nil {
		// No mount of the pod's own shares a path with a preset's: the
		// pod's paths checked or not, the specification's outcome (a
		// request of the case may show the fault where another cannot).
		masked = h.spec
	}
	return append(out, masked...)
}

// defaultsOnOneSide: a preset's items compared with the pod's where only
// one side has the defaults the API server gives a pod's items (R3.4: an
// item equal to the pod's once defaulted is skipped): the preset's as
// stored against the pod's defaulted ones (merge.Variant.PresetsUndefaulted,
// what an implementation that compares with reflect.DeepEqual does), or the
// pod's as submitted against the preset's defaulted ones (undefaulted).
// What a request shows rarely tells the two apart, and the rule is one.
func defaultsOnOneSide(h hypothesisInput) []model.Outcome {
	return append(variant(func(v *merge.Variant) { v.PresetsUndefaulted = true })(h), undefaulted(h)...)
}

// undefaulted: the pod's own items compared with a preset's as they were
// before the API server defaulted them (R3.4: items are compared as
// stored): as the pod was submitted, or with the two defaults a preset's
// items meet most (a fieldRef's apiVersion, a volume's defaultMode)
// stripped.
func undefaulted(h hypothesisInput) []model.Outcome {
	out := ownItemsMasked(h, func(pod *corev1.Pod) {
		pod.Spec.Volumes = slices.Clone(h.obs.Pod.Spec.Volumes)
		submitted := containers(h.obs.Pod)
		for i, c := range containers(pod) {
			if i < len(submitted) {
				c.Env = slices.Clone(submitted[i].Env)
			}
		}
	})
	return append(out, ownItemsMasked(h, func(pod *corev1.Pod) {
		for _, c := range containers(pod) {
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
					e.ValueFrom.FieldRef.APIVersion = ""
				}
			}
		}
		for _, v := range pod.Spec.Volumes {
			switch {
			case v.Secret != nil:
				v.Secret.DefaultMode = nil
			case v.ConfigMap != nil:
				v.ConfigMap.DefaultMode = nil
			}
		}
	})...)
}

// identicalEnvAgain: the specification's outcome, with each env var of a
// matching preset that is identical to one a container was submitted with
// appended to it again, when the presets were applied (R3.4: identical
// items are added once).
func identicalEnvAgain(h hypothesisInput) []model.Outcome {
	changed := false
	out := reported(func(o *model.Outcome, h hypothesisInput) {
		if o.Pod == nil || len(o.Applied) == 0 {
			return
		}
		for _, pair := range [][2][]corev1.Container{{o.Pod.Spec.InitContainers, h.a.Pod.Spec.InitContainers}, {o.Pod.Spec.Containers, h.a.Pod.Spec.Containers}} {
			for i := range pair[0] {
				if i >= len(pair[1]) {
					break
				}
				for _, name := range o.Applied { // in the order applied
					k := slices.IndexFunc(h.a.Presets, func(p *v1alpha1.PodPreset) bool { return p.Name == name })
					if k < 0 {
						continue
					}
					for _, e := range defaults.Preset(h.a.Presets[k]).Spec.Env {
						if slices.ContainsFunc(pair[1][i].Env, func(own corev1.EnvVar) bool { return equality.Semantic.DeepEqual(own, e) }) {
							pair[0][i].Env = append(pair[0][i].Env, e)
							changed = true
						}
					}
				}
			}
		}
	})(h)
	if !changed {
		return nil
	}
	return out
}

// ownItemsMasked is the model's outcomes when the pod's own items are
// compared as mask leaves them (an implementation that normalises or
// hides some before its merge), the pod then given back its own items;
// nil when mask changes nothing.
func ownItemsMasked(h hypothesisInput, mask func(*corev1.Pod)) []model.Outcome {
	a := h.a
	a.Pod = h.a.Pod.DeepCopy()
	mask(a.Pod)
	if equality.Semantic.DeepEqual(a.Pod, h.a.Pod) {
		return nil
	}
	own := containers(h.a.Pod)
	outcomes := model.Admit(a, h.opts)
	for _, o := range outcomes {
		if o.Pod == nil {
			continue
		}
		// The model keeps the pod's own items first (R3.3), in their
		// order.
		copy(o.Pod.Spec.Volumes, h.a.Pod.Spec.Volumes)
		for i, c := range containers(o.Pod) {
			if i < len(own) {
				copy(c.Env, own[i].Env)
				copy(c.EnvFrom, own[i].EnvFrom)
				copy(c.VolumeMounts, own[i].VolumeMounts)
			}
		}
	}
	return outcomes
}

// firstContainerOnly: only the first app container is injected into; the
// pod's other containers and init containers stay as submitted (R3.2).
func firstContainerOnly(h hypothesisInput) []model.Outcome {
	pod := h.a.Pod
	if len(pod.Spec.Containers)+len(pod.Spec.InitContainers) < 2 || len(pod.Spec.Containers) == 0 {
		return nil
	}
	var out []model.Outcome
	// The init containers left alone, or injected into as the
	// specification says.
	for _, inits := range [][]corev1.Container{nil, pod.Spec.InitContainers} {
		a := h.a
		a.Pod = pod.DeepCopy()
		a.Pod.Spec.InitContainers, a.Pod.Spec.Containers = slices.Clone(inits), a.Pod.Spec.Containers[:1]
		outcomes := model.Admit(a, h.opts)
		for i := range outcomes {
			if p := outcomes[i].Pod; p != nil {
				if inits == nil {
					p.Spec.InitContainers = slices.Clone(pod.Spec.InitContainers)
				}
				p.Spec.Containers = append(p.Spec.Containers[:1], pod.Spec.Containers[1:]...)
			}
		}
		out = append(out, outcomes...)
		if len(pod.Spec.InitContainers) == 0 {
			break
		}
	}
	// Or conflicts found in every container, as the specification finds
	// them, and what it injects kept in the first app container only
	// (and in the init containers, or not).
	out = append(out, specUndone(h, func(made, submitted *corev1.Pod) {
		made.Spec.Containers = append(made.Spec.Containers[:1], submitted.Spec.Containers[1:]...)
	})...)
	return append(out, specUndone(h, func(made, submitted *corev1.Pod) {
		made.Spec.Containers = append(made.Spec.Containers[:1], submitted.Spec.Containers[1:]...)
		made.Spec.InitContainers = submitted.Spec.InitContainers
	})...)
}

// initContainersUntouched: init containers are left alone (R3.2), as a
// merge that leaves them out does (merge.Variant.InitContainersUntouched),
// or as one that finds conflicts in them too, as the specification does,
// and then gives them back as submitted.
func initContainersUntouched(h hypothesisInput) []model.Outcome {
	out := variant(func(v *merge.Variant) { v.InitContainersUntouched = true })(h)
	return append(out, specUndone(h, func(made, submitted *corev1.Pod) {
		made.Spec.InitContainers = submitted.Spec.InitContainers
	})...)
}

// volumesNeverAdded: the presets' volumes never reach the pod, read out of
// the presets before the merge (they then conflict with nothing) or taken
// away from what the merge made (they still conflict, and a conflict of
// volumes alone leaves every preset out, R4.2).
func volumesNeverAdded(h hypothesisInput) []model.Outcome {
	out := stripped(func(s *v1alpha1.PodPresetSpec) { s.Volumes = nil })(h)
	return append(out, specUndone(h, func(made, submitted *corev1.Pod) {
		made.Spec.Volumes = submitted.Spec.Volumes
	})...)
}

// specUndone is the specification's outcomes with part of what they made
// undone: undo edits a copy of each pod made, given a copy of the pod as
// submitted. A request the specification leaves alone stays so.
func specUndone(h hypothesisInput, undo func(made, submitted *corev1.Pod)) []model.Outcome {
	var out []model.Outcome
	for _, o := range h.spec {
		if o.Pod == nil {
			continue
		}
		x := o
		x.Pod = o.Pod.DeepCopy()
		undo(x.Pod, h.a.Pod.DeepCopy())
		out = append(out, x)
	}
	return out
}

// imageVolumesLost is a preset as an implementation built on API types
// older than image volumes (Kubernetes 1.31) reads it: a volume whose only
// source is an image has none, which the API server defaults to an
// emptyDir once the implementation injects it.
func imageVolumesLost(s *v1alpha1.PodPresetSpec) {
	for i := range s.Volumes {
		if s.Volumes[i].Image != nil {
			s.Volumes[i].VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
		}
	}
}

// recursiveReadOnlyLost is a preset as an implementation built on API
// types older than recursive read-only mounts (Kubernetes 1.30) reads it.
func recursiveReadOnlyLost(s *v1alpha1.PodPresetSpec) {
	for i := range s.VolumeMounts {
		s.VolumeMounts[i].RecursiveReadOnly = nil
	}
}

// stripped: the presets taken as strip leaves them (one kind of item never
// injected, fields an implementation cannot read).
func stripped(strip func(*v1alpha1.PodPresetSpec)) func(hypothesisInput) []model.Outcome {
	return func(h hypothesisInput) []model.Outcome {
		a := h.a
		a.Presets = make([]*v1alpha1.PodPreset, len(h.a.Presets))
		changed := false
		for i, p := range h.a.Presets {
			q := p.DeepCopy()
			strip(&q.Spec)
			changed = changed || !equality.Semantic.DeepEqual(p.Spec, q.Spec)
			a.Presets[i] = q
		}
		if !changed {
			return nil
		}
		return model.Admit(a, h.opts)
	}
}

// injectedFirst: the specification's outcome with each list's injected
// items before the pod's own (R3.3): every list of every container, or
// only env vars and volume mounts (an implementation that builds those two
// lists from the preset's, and appends the rest), of the app containers
// alone or of the init containers too.
func injectedFirst(h hypothesisInput) []model.Outcome {
	var out []model.Outcome
	for _, every := range []bool{true, false} {
		for _, inits := range []bool{true, false} {
			out = append(out, reported(func(o *model.Outcome, h hypothesisInput) {
				if o.Pod == nil {
					return
				}
				if every {
					o.Pod.Spec.Volumes = first(o.Pod.Spec.Volumes, len(h.a.Pod.Spec.Volumes))
				}
				pairs := [][2][]corev1.Container{{o.Pod.Spec.Containers, h.a.Pod.Spec.Containers}}
				if inits {
					pairs = append(pairs, [2][]corev1.Container{o.Pod.Spec.InitContainers, h.a.Pod.Spec.InitContainers})
				}
				for _, pair := range pairs {
					for i := range pair[0] {
						if i >= len(pair[1]) {
							break
						}
						c, own := &pair[0][i], pair[1][i]
						c.Env = first(c.Env, len(own.Env))
						c.VolumeMounts = first(c.VolumeMounts, len(own.VolumeMounts))
						if every {
							c.EnvFrom = first(c.EnvFrom, len(own.EnvFrom))
						}
					}
				}
			})(h)...)
		}
	}
	return out
}

// first moves a list's items after its first own ones before them.
func first[T any](list []T, own int) []T {
	if own == 0 || own >= len(list) {
		return list
	}
	return slices.Concat(list[own:], list[:own])
}

// reported: the specification's outcomes, edited.
func reported(edit func(*model.Outcome, hypothesisInput)) func(hypothesisInput) []model.Outcome {
	return func(h hypothesisInput) []model.Outcome {
		out := make([]model.Outcome, len(h.spec))
		for i, o := range h.spec {
			if o.Pod != nil {
				o.Pod = o.Pod.DeepCopy()
			}
			o.Warnings, o.Events = slices.Clone(o.Warnings), slices.Clone(o.Events)
			edit(&o, h)
			out[i] = o
		}
		return out
	}
}

// dropApplied removes the applied annotations the outcome added.
func dropApplied(o *model.Outcome) {
	if o.Pod == nil {
		return
	}
	for _, name := range o.Applied {
		delete(o.Pod.Annotations, merge.AnnotationKey(name))
	}
}

// annotationsReplaced: the pod's own annotations replaced by the applied
// ones (R3.7: existing annotations are kept): every applied one kept, or
// only those the admission added (an applied annotation the pod was
// submitted with goes with the rest of its own).
func annotationsReplaced(h hypothesisInput) []model.Outcome {
	if len(h.a.Pod.Annotations) == 0 {
		return nil
	}
	var out []model.Outcome
	for _, keepSubmitted := range []bool{true, false} {
		out = append(out, reported(func(o *model.Outcome, h hypothesisInput) {
			if o.Pod == nil || len(o.Applied) == 0 {
				return
			}
			kept := map[string]string{}
			for _, name := range o.Applied {
				key := merge.AnnotationKey(name)
				if _, submitted := h.a.Pod.Annotations[key]; keepSubmitted || !submitted {
					kept[key] = o.Pod.Annotations[key]
				}
			}
			o.Pod.Annotations = kept
		})(h)...)
	}
	return out
}

// eventsOnDryRun: a dry run records the events the real create records
// (R2.1).
func eventsOnDryRun(h hypothesisInput) []model.Outcome {
	if !h.a.DryRun {
		return nil
	}
	a := h.a
	a.DryRun = false
	return model.Admit(a, h.opts)
}

// annotatedWhenChanged: a preset that added nothing new leaves no applied
// annotation (R3.7: even when it contributed nothing new).
func annotatedWhenChanged(h hypothesisInput) []model.Outcome {
	return reported(func(o *model.Outcome, h hypothesisInput) {
		if o.Pod == nil || len(o.Applied) == 0 {
			return
		}
		for _, name := range o.Applied {
			alone := h.a
			alone.Presets = slices.DeleteFunc(slices.Clone(h.a.Presets), func(p *v1alpha1.PodPreset) bool { return p.Name != name })
			for _, x := range model.Admit(alone, h.opts) {
				if x.Pod == nil {
					continue
				}
				dropApplied(&x)
				if samePodItems(defaults.Pod(x.Pod), defaults.Pod(h.a.Pod)) {
					delete(o.Pod.Annotations, merge.AnnotationKey(name))
				}
			}
		}
	})(h)
}

// overwrites: every matching preset applied, a conflicting item in place
// of the one it conflicts with (R4.4: data lost), reported or not; or,
// reported as the merge then finds them, the pod's own items that share a
// key with a matching preset's dropped first and the presets merged into
// what is left.
func overwrites(quiet bool) func(hypothesisInput) []model.Outcome {
	return func(h hypothesisInput) []model.Outcome {
		if !slices.ContainsFunc(h.spec, func(o model.Outcome) bool { return len(o.Conflicts) > 0 }) {
			return nil
		}
		o := h.opts
		o.Conflicts, o.Variant.OverwriteConflicts = model.Apply, true
		out := model.Admit(h.a, o)
		if quiet {
			for i := range out {
				out[i].Warnings, out[i].Events = nil, nil
			}
			return out
		}
		return append(out, ownShadowedDropped(h)...)
	}
}

// ownShadowedDropped is the model's outcomes for the pod without its own
// items that share a name (or a volume mount's path) with an item of a
// matching preset.
func ownShadowedDropped(h hypothesisInput) []model.Outcome {
	var matching []*v1alpha1.PodPreset
	for _, p := range h.a.Presets {
		if slices.Contains(h.matching(), p.Name) {
			matching = append(matching, p)
		}
	}
	a := h.a
	a.Pod = h.a.Pod.DeepCopy()
	for _, p := range matching {
		for _, c := range containers(a.Pod) {
			c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool {
				return slices.ContainsFunc(p.Spec.Env, func(x corev1.EnvVar) bool { return x.Name == e.Name })
			})
			c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
				return slices.ContainsFunc(p.Spec.VolumeMounts, func(x corev1.VolumeMount) bool { return x.Name == m.Name || x.MountPath == m.MountPath })
			})
		}
		a.Pod.Spec.Volumes = slices.DeleteFunc(a.Pod.Spec.Volumes, func(v corev1.Volume) bool {
			return slices.ContainsFunc(p.Spec.Volumes, func(x corev1.Volume) bool { return x.Name == v.Name })
		})
	}
	if equality.Semantic.DeepEqual(a.Pod, h.a.Pod) {
		return nil
	}
	return model.Admit(a, h.opts)
}

// prefixesDropped: envFrom entries keyed by their source alone and injected
// without their prefix (R3.5); the pod's own entries compared without
// theirs too, or as they are.
func prefixesDropped(h hypothesisInput) []model.Outcome {
	unprefixed := func(s *v1alpha1.PodPresetSpec) {
		for i := range s.EnvFrom {
			s.EnvFrom[i].Prefix = ""
		}
	}
	h.opts.Variant.EnvFromPrefixIgnored = true
	out := stripped(unprefixed)(h)
	a := h.a
	a.Presets = make([]*v1alpha1.PodPreset, len(h.a.Presets))
	for i, p := range h.a.Presets {
		a.Presets[i] = p.DeepCopy()
		unprefixed(&a.Presets[i].Spec)
	}
	h.a = a
	return append(out, ownItemsMasked(h, func(pod *corev1.Pod) {
		for _, c := range containers(pod) {
			for j := range c.EnvFrom {
				c.EnvFrom[j].Prefix = ""
			}
		}
	})...)
}

// containers is the pod's init containers, then its app containers, as
// pointers into the pod: the order in which a container's index is
// counted across both lists.
func containers(pod *corev1.Pod) []*corev1.Container {
	out := make([]*corev1.Container, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}
