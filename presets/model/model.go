package model

import (
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// Admission is one pod creation as an implementation sees it.
type Admission struct {
	// Presets are the presets of the pod's namespace at admission time
	// (R2.2: the caller passes no other namespace's).
	Presets []*v1alpha1.PodPreset
	// Pod is the pod as submitted, with the API server's defaults.
	Pod *corev1.Pod
	// DryRun is a server-side dry run (R2.1: no events).
	DryRun bool
}

// Conflicts is what an implementation does when a matching preset
// conflicts (R4.2); every value keeps R4.4: nothing the pod had is lost.
type Conflicts string

// The values of Conflicts, as a profile's behaviour names them.
const (
	// SkipAll, the specification's: no preset applies, the pod is
	// admitted as submitted, the conflict is reported (R4.2, R4.3).
	SkipAll Conflicts = "skip-all"
	// Reject: the pod is refused; nothing is stored.
	Reject Conflicts = "reject"
	// SkipPreset: the presets that conflict (with the pod or with a
	// preset applied before them) are skipped, the others applied as the
	// specification says.
	SkipPreset Conflicts = "skip-preset"
	// Apply: every matching preset applies; its items that conflict are
	// skipped, the others appended.
	Apply Conflicts = "apply"
)

// Order is the order matching presets are applied in (R3.6).
type Order string

// The values of Order.
const (
	// ByName, the specification's: by name, in byte order.
	ByName Order = "name"
	// Unspecified: any order is accepted; Admit returns one outcome per
	// order.
	Unspecified Order = "unspecified"
)

// Options select the specification (the zero value) or a declared variant
// of it.
type Options struct {
	// Conflicts is SkipAll when empty.
	Conflicts Conflicts
	// Order is ByName when empty.
	Order Order
	// Variant varies what is injected (init containers, envFrom).
	Variant merge.Variant
}

// Outcome is what the model says one admission makes.
type Outcome struct {
	// Refused is set when the pod is refused (Conflicts Reject); Pod is
	// then nil and Message says why.
	Refused bool
	Message string
	// Pod is the admitted pod, annotations included.
	Pod *corev1.Pod
	// Matching are the presets whose selector matches the pod, in the
	// order applied; Applied those applied. Both are empty when the
	// request is not mutated at all (Skipped says why).
	Matching, Applied []string
	// Skipped says why the request is left alone: "excluded" (R2.4),
	// "mirror" (R2.5); empty otherwise.
	Skipped string
	// Conflicts are every conflict found, as data.
	Conflicts []conflict.Item
	// Warnings are the admission warnings (R4.3).
	Warnings []string
	// Events are the events recorded (R4.3), none on a dry run (R2.1).
	Events []conflict.Event
	// InvalidSelectors are the presets whose selector cannot be read; they
	// apply to no pod.
	InvalidSelectors []string
}

// maxOrders bounds the orders tried when the order is unspecified: 6
// matching presets have 720; more are tried in name order and in reverse.
const maxOrders = 6

// Admit returns every outcome the options allow for the admission: one,
// or, when the order is unspecified, one per order of the matching
// presets (duplicates removed).
func Admit(a Admission, o Options) []Outcome {
	pod := a.Pod
	if pod == nil {
		return nil
	}
	// R2.4, R2.5: the guard comes first.
	if pod.Annotations[merge.ExcludeAnnotation] == "true" {
		return []Outcome{{Pod: pod.DeepCopy(), Skipped: "excluded"}}
	}
	if _, mirror := pod.Annotations[admission.MirrorPodAnnotation]; mirror {
		return []Outcome{{Pod: pod.DeepCopy(), Skipped: "mirror"}}
	}
	// R2.3, R3.6.
	matching, _ := merge.Select(pod, a.Presets)
	invalid := invalidSelectors(a.Presets)
	var out []Outcome
	for _, order := range orders(matching, o.Order) {
		oc := admitInOrder(a, order, o)
		oc.InvalidSelectors = invalid
		if !containsOutcome(out, oc) {
			out = append(out, oc)
		}
	}
	return out
}

// admitInOrder is one outcome: the presets applied in the order given.
func admitInOrder(a Admission, presets []*v1alpha1.PodPreset, o Options) Outcome {
	oc := Outcome{Matching: names(presets)}
	if len(presets) == 0 {
		oc.Pod = a.Pod.DeepCopy()
		return oc
	}
	switch o.Conflicts {
	case Reject:
		r := merge.ApplyVariant(a.Pod, presets, o.Variant)
		if len(r.Conflicts) > 0 {
			oc.Refused, oc.Conflicts = true, r.Conflicts
			oc.Message = strings.Join(conflict.Messages(r.Conflicts), conflict.Separator)
			return oc
		}
		oc.Pod, oc.Applied = r.Pod, r.Applied
	case SkipPreset:
		// Each preset is applied to what the ones before it made; one that
		// conflicts is skipped and reported.
		pod := a.Pod.DeepCopy()
		for _, p := range presets {
			r := merge.ApplyVariant(pod, []*v1alpha1.PodPreset{p}, o.Variant)
			if len(r.Conflicts) > 0 {
				oc.Conflicts = append(oc.Conflicts, r.Conflicts...)
				continue
			}
			pod, oc.Applied = r.Pod, append(oc.Applied, p.Name)
		}
		oc.Pod = pod
	case Apply:
		merged, conflicts := merge.Merge(a.Pod, presets, o.Variant)
		for _, p := range presets {
			annotate(merged, p)
			oc.Applied = append(oc.Applied, p.Name)
		}
		oc.Pod, oc.Conflicts = merged, conflicts
	default: // SkipAll, the specification (R4.2)
		r := merge.ApplyVariant(a.Pod, presets, o.Variant)
		oc.Pod, oc.Applied, oc.Conflicts = r.Pod, r.Applied, r.Conflicts
	}
	report(&oc, a)
	return oc
}

// report adds the conflicts as warnings and, unless the request is a dry
// run, as events on the pod or its controller owner (R4.3, R2.1).
func report(oc *Outcome, a Admission) {
	reports := conflict.Reports(oc.Conflicts)
	oc.Warnings = nil
	for _, r := range reports {
		oc.Warnings = append(oc.Warnings, r.Message())
	}
	if a.DryRun {
		return
	}
	if ref := conflict.Target(a.Pod, a.Pod.Namespace); ref != nil {
		for _, r := range reports {
			oc.Events = append(oc.Events, r.Event(ref))
		}
	}
}

// annotate records an applied preset on the pod (R3.7).
func annotate(pod *corev1.Pod, p *v1alpha1.PodPreset) {
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[merge.AnnotationKey(p.Name)] = p.ResourceVersion
}

// invalidSelectors names the presets whose selector cannot be read.
func invalidSelectors(presets []*v1alpha1.PodPreset) []string {
	var out []string
	for _, p := range presets {
		if p == nil {
			continue
		}
		if _, err := metav1.LabelSelectorAsSelector(&p.Spec.Selector); err != nil {
			out = append(out, p.Name)
		}
	}
	return out
}

func names(presets []*v1alpha1.PodPreset) []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	return out
}
