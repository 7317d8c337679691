package explain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"presetsim.dev/presetsim/internal/words"

	"presetsim.dev/presetsim/presets/conflict"

	"presetsim.dev/presetsim/rule"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// Outcomes of a Verdict.
const (
	Applied    = "applied"
	NotApplied = "not applied"
	Conflict   = "conflict"
)

// Verdict is what one preset does to one pod, and why.
type Verdict struct {
	Preset          string `json:"preset"`
	PresetNamespace string `json:"presetNamespace"`
	// Outcome is Applied, NotApplied or Conflict.
	Outcome string `json:"outcome"`
	// Rule is the rule of the specification the verdict rests on.
	Rule rule.ID `json:"rule"`
	// Reason is the verdict's reason, one line in the specification's terms.
	Reason string `json:"reason"`
	// Added and Skipped are the items an applied preset added, and those it
	// skipped as identical to an item already there (R3.4), e.g.
	// `env DB_PORT in container website`.
	Added   []string `json:"added,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	// Conflicts are the preset's own conflicts (R4.1), each with both items.
	Conflicts []ConflictItem `json:"conflicts,omitempty"`
}

// ConflictItem is one conflict: where, on which key, and the two items.
type ConflictItem struct {
	// What is conflict.Item's description, e.g. "duplicate env DB_PORT in
	// container website".
	What     string `json:"what"`
	Preset   string `json:"preset"`
	Existing string `json:"existing"`
}

// String is the verdict as one line: "<preset> (<ns>): <outcome>: <reason>".
func (v Verdict) String() string {
	return fmt.Sprintf("%s (namespace %s): %s: %s [%s]", v.Preset, v.PresetNamespace, v.Outcome, v.Reason, v.Rule)
}

// Pod explains what each preset does to pod, as the reference does it
// (package merge and the admission plug-in's guards), in the order the
// presets are given; presets of every namespace may be given, and those of
// other namespaces are explained too (R2.2). The pod carries its namespace
// and the API server's defaults, as admission sees it.
func Pod(pod *corev1.Pod, presets []*v1alpha1.PodPreset) []Verdict {
	ns := pod.Namespace
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	verdicts := make([]Verdict, len(presets))
	var candidates []*v1alpha1.PodPreset // same namespace, selected
	for i, p := range presets {
		v := &verdicts[i]
		v.Preset, v.PresetNamespace, v.Outcome = p.Name, namespaceOr(p.Namespace), NotApplied
		switch {
		case v.PresetNamespace != ns:
			v.Rule, v.Reason = rule.R2_2, fmt.Sprintf("the preset lives in namespace %s and the pod in %s; presets apply to the pods of their own namespace", v.PresetNamespace, ns)
		case pod.Annotations[merge.ExcludeAnnotation] == "true":
			v.Rule, v.Reason = rule.R2_4, fmt.Sprintf("the pod is excluded by its annotation %s: %q", merge.ExcludeAnnotation, "true")
		case hasKey(pod.Annotations, admission.MirrorPodAnnotation):
			v.Rule, v.Reason = rule.R2_5, fmt.Sprintf("the pod is a mirror pod (annotation %s), which no preset mutates", admission.MirrorPodAnnotation)
		default:
			v.Rule, v.Reason = rule.R2_3, selects(p, pod.Labels)
			if v.Reason == "" {
				candidates = append(candidates, p)
			}
		}
	}
	if len(candidates) == 0 {
		return verdicts
	}
	selected, _ := merge.Select(pod, candidates)
	result := merge.Apply(pod, selected)
	// applied(k) is the pod with the first k selected presets applied, each
	// computed once: a preset's contribution is what it adds to the one
	// before.
	prefixes := map[int]*corev1.Pod{len(selected): result.Pod}
	applied := func(k int) *corev1.Pod {
		if prefixes[k] == nil {
			prefixes[k] = merge.Apply(pod, selected[:k]).Pod
		}
		return prefixes[k]
	}
	for i := range verdicts {
		v := &verdicts[i]
		at := slices.IndexFunc(selected, func(p *v1alpha1.PodPreset) bool { return p == presets[i] })
		if at < 0 {
			continue
		}
		if len(result.Conflicts) > 0 {
			explainConflict(v, presets[i].Name, result.Conflicts)
			continue
		}
		v.Outcome, v.Rule = Applied, rule.R2_3
		v.Added, v.Skipped = contribution(applied(at), applied(at+1), presets[i])
		v.Reason = fmt.Sprintf("the selector matches; applied %s of %d, in name order; %s added, %s skipped as identical; annotated %s=%q",
			ordinal(at+1), len(selected), words.Count(len(v.Added), "item"), words.Count(len(v.Skipped), "item"), merge.AnnotationKey(v.Preset), presets[i].ResourceVersion)
	}
	return verdicts
}

// explainConflict sets the verdict of a selected preset when any selected
// preset conflicts: the conflicting ones name their items, the others say
// whose conflict holds them back (R4.2).
func explainConflict(v *Verdict, name string, conflicts []conflict.Item) {
	v.Outcome, v.Rule = Conflict, rule.R4_1
	var culprits []string
	for _, c := range conflicts {
		if !slices.Contains(culprits, c.Preset) {
			culprits = append(culprits, c.Preset)
		}
		if c.Preset == name {
			v.Conflicts = append(v.Conflicts, ConflictItem{What: c.String(), Preset: c.Injected, Existing: c.Existing})
		}
	}
	if len(v.Conflicts) > 0 {
		whats := make([]string, len(v.Conflicts))
		for i, c := range v.Conflicts {
			whats[i] = fmt.Sprintf("%s: the preset has %s, the pod already has %s", c.What, c.Preset, c.Existing)
		}
		v.Reason = strings.Join(whats, "; ") + "; so no preset is applied, and the API server warns and records an event: " + message(name, conflicts)
		return
	}
	v.Outcome, v.Rule = NotApplied, rule.R4_2
	v.Reason = fmt.Sprintf("the selector matches, but %s conflicts, and a conflict applies no preset", strings.Join(culprits, ", "))
}

// selects returns "" when the preset's selector matches the labels, and
// otherwise names the first requirement that fails and what the pod has.
func selects(p *v1alpha1.PodPreset, podLabels map[string]string) string {
	sel, err := metav1.LabelSelectorAsSelector(&p.Spec.Selector)
	if err != nil {
		return fmt.Sprintf("the preset's selector is invalid (%v), so it selects no pod", err)
	}
	reqs, _ := sel.Requirements()
	set := labels.Set(podLabels)
	for _, r := range reqs {
		if r.Matches(set) {
			continue
		}
		has := "has no label " + r.Key()
		if v, ok := podLabels[r.Key()]; ok {
			has = fmt.Sprintf("has %s=%s", r.Key(), v)
		}
		return fmt.Sprintf("the selector wants %s and the pod %s", requirement(r), has)
	}
	return ""
}

// requirement renders a selector requirement as a person writes it:
// "role=frontend", "role In [frontend, web]", "has label tier".
func requirement(r labels.Requirement) string {
	vals := r.Values().List()
	switch r.Operator() {
	case selection.Equals, selection.DoubleEquals:
		return r.Key() + "=" + vals[0]
	case selection.NotEquals:
		return r.Key() + "!=" + vals[0]
	case selection.In:
		return fmt.Sprintf("%s In [%s]", r.Key(), strings.Join(vals, ", "))
	case selection.NotIn:
		return fmt.Sprintf("%s NotIn [%s]", r.Key(), strings.Join(vals, ", "))
	case selection.Exists:
		return "a label " + r.Key()
	case selection.DoesNotExist:
		return "no label " + r.Key()
	}
	return r.String()
}

// contribution returns the items preset p added, and those it skipped:
// the difference between the pod with the presets up to it applied (after)
// and up to the one before (before).
func contribution(before, after *corev1.Pod, p *v1alpha1.PodPreset) (added, skipped []string) {
	volumes := newKeys(after.Spec.Volumes, before.Spec.Volumes, func(x *corev1.Volume) string { return x.Name })
	for _, v := range p.Spec.Volumes {
		sortInto(&added, &skipped, volumes[v.Name], "volume "+v.Name)
	}
	for c := range after.Spec.InitContainers {
		items(&added, &skipped, p, &before.Spec.InitContainers[c], &after.Spec.InitContainers[c], "init container")
	}
	for c := range after.Spec.Containers {
		items(&added, &skipped, p, &before.Spec.Containers[c], &after.Spec.Containers[c], "container")
	}
	return added, skipped
}

// items sorts a preset's env, envFrom and volumeMounts in one container
// into added and skipped, by whether the container's list grew by them.
func items(added, skipped *[]string, p *v1alpha1.PodPreset, before, after *corev1.Container, what string) {
	where := fmt.Sprintf(" in %s %s", what, after.Name)
	env := newKeys(after.Env, before.Env, func(x *corev1.EnvVar) string { return x.Name })
	for _, e := range p.Spec.Env {
		sortInto(added, skipped, env[e.Name], "env "+e.Name+where)
	}
	envFrom := newKeys(after.EnvFrom, before.EnvFrom, merge.EnvFromLabel)
	for _, e := range p.Spec.EnvFrom {
		sortInto(added, skipped, envFrom[merge.EnvFromLabel(&e)], "envFrom "+merge.EnvFromLabel(&e)+where)
	}
	mounts := newKeys(after.VolumeMounts, before.VolumeMounts, func(x *corev1.VolumeMount) string { return x.MountPath })
	for _, m := range p.Spec.VolumeMounts {
		sortInto(added, skipped, mounts[m.MountPath], "volumeMount "+m.MountPath+where)
	}
}

// newKeys is the set of keys of the items after holds beyond before (the
// items admission appended), found once per list, not once per item.
func newKeys[T any](after, before []T, key func(*T) string) map[string]bool {
	keys := make(map[string]bool, max(len(after)-len(before), 0))
	for i := len(before); i < len(after); i++ {
		keys[key(&after[i])] = true
	}
	return keys
}

func sortInto(added, skipped *[]string, isNew bool, item string) {
	if isNew {
		*added = append(*added, item)
	} else {
		*skipped = append(*skipped, item)
	}
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

func namespaceOr(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

// message is the text of the PodPresetConflict event and warning (R4.3)
// for the preset.
func message(name string, conflicts []conflict.Item) string {
	own := slices.DeleteFunc(slices.Clone(conflicts), func(c conflict.Item) bool { return c.Preset != name })
	return strconv.Quote(conflict.Messages(own)[0])
}

// ordinal is 1st, 2nd, 3rd, 4th...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
