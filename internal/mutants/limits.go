package mutants

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/rule"
)

// limitMutants break R6.4, no limit of their own: each behaves as the
// reference until a name or a number reaches an edge the API server
// accepts, as an implementation written for the common case would.
var limitMutants = []decoratedMutant{
	{Mutant{"caps-presets", rule.R6_4, "applies at most eight of the presets that select a pod (the first by name) and leaves the rest out, as an implementation with a fixed-size table of them"}, fault{
		presets: func(pod *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			matching, _ := merge.Select(pod, all)
			if len(matching) <= maxPresets {
				return all
			}
			slices.SortFunc(matching, func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })
			dropped := matching[maxPresets:]
			return slices.DeleteFunc(slices.Clone(all), func(p *v1alpha1.PodPreset) bool { return slices.Contains(dropped, p) })
		}}},
	{Mutant{"cuts-names-at-dot", rule.R6_4, "writes a preset's applied annotation under its name cut at the first dot, as an implementation that takes a preset's name for a DNS label"}, fault{
		after: func(_, admitted *corev1.Pod, matching []*v1alpha1.PodPreset) {
			for _, p := range matching {
				short, _, dotted := strings.Cut(p.Name, ".")
				key := merge.AnnotationKey(p.Name)
				if v, ok := admitted.Annotations[key]; ok && dotted {
					delete(admitted.Annotations, key)
					admitted.Annotations[merge.AnnotationKey(short)] = v
				}
			}
		}}},
	{Mutant{"caps-items", rule.R6_4, "injects at most the first 32 env vars of each preset, as an implementation with a fixed-size buffer of them"}, fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			out := make([]*v1alpha1.PodPreset, len(all))
			for i, p := range all {
				if out[i] = p; len(p.Spec.Env) > maxItems {
					out[i] = p.DeepCopy()
					out[i].Spec.Env = out[i].Spec.Env[:maxItems]
				}
			}
			return out
		}}},
	{Mutant{"caps-containers", rule.R6_4, "injects into the first four containers of a pod only (init containers first), as an implementation with a fixed-size array of them"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			before := containers(submitted)
			for i, c := range containers(admitted) {
				if i >= maxContainers && i < len(before) {
					*c = *before[i].DeepCopy()
				}
			}
		}}},
}

// maxPresets is how many presets caps-presets applies at most; maxItems
// how many env vars of a preset caps-items injects; maxContainers how many
// containers caps-containers injects into.
const (
	maxPresets    = 8
	maxItems      = 32
	maxContainers = 4
)
