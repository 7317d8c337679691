package mutants

import (
	"context"
	"slices"
	"strings"

	"presetsim.dev/presetsim/rule"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"

	"presetsim.dev/presetsim/internal/defaults"
	podpreset "presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/conflict"
	"presetsim.dev/presetsim/presets/merge"
)

// classicMutants are the first thirteen mutants, the faults the suite was
// first written against, each a decorator of the reference plug-in.
var classicMutants = []decoratedMutant{
	{Mutant{"applies-non-matching", rule.R2_3, "applies every preset of the namespace, whatever its selector"}, fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			return copies(all, func(p *v1alpha1.PodPreset) { p.Spec.Selector = metav1.LabelSelector{} })
		}}},
	{Mutant{"other-namespaces", rule.R2_2, "takes matching presets from every namespace"}, fault{
		around: func(ctx context.Context, a admission.Attributes, _ *corev1.Pod, env *call, _ func(context.Context) error) error {
			return env.plugin(env.everyNamespace()).Admit(ctx, a, nil)
		}}},
	{Mutant{"namespace-prefix", rule.R2_2, "takes the presets of every namespace whose name begins with the pod's namespace's, as a cache searched by a key prefix without its separator"}, fault{
		around: func(ctx context.Context, a admission.Attributes, _ *corev1.Pod, env *call, _ func(context.Context) error) error {
			presets := slices.DeleteFunc(env.everyNamespace(), func(p *v1alpha1.PodPreset) bool { return !strings.HasPrefix(p.Namespace, a.GetNamespace()) })
			return env.plugin(presets).Admit(ctx, a, nil)
		}}},
	{Mutant{"ignores-exclude", rule.R2_4, "mutates pods annotated podpreset.admission.kubernetes.io/exclude: \"true\""}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, _ *call, next func(context.Context) error) error {
			value, excluded := pod.Annotations[merge.ExcludeAnnotation]
			delete(pod.Annotations, merge.ExcludeAnnotation)
			err := next(ctx)
			if excluded {
				if pod.Annotations == nil {
					pod.Annotations = map[string]string{}
				}
				pod.Annotations[merge.ExcludeAnnotation] = value
			}
			return err
		}}},
	{Mutant{"last-preset-only", rule.R3_6, "applies only the last matching preset"}, fault{
		presets: func(pod *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			matching, _ := merge.Select(pod, all)
			if len(matching) == 0 {
				return nil
			}
			return matching[len(matching)-1:]
		}}},
	{Mutant{"reverse-order", rule.R3_6, "applies matching presets in reverse name order"}, fault{
		around: func(ctx context.Context, a admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error {
			matching, _ := merge.Select(pod, env.presets)
			if len(merge.Apply(pod, matching).Conflicts) > 0 {
				return next(ctx) // conflicts do not depend on the order: the reference reports them
			}
			for _, p := range slices.Backward(matching) {
				if err := env.plugin([]*v1alpha1.PodPreset{p}).Admit(ctx, a, nil); err != nil {
					return err
				}
			}
			return nil
		}}},
	{Mutant{"prepends", rule.R3_3, "puts injected env vars and mounts before the container's own"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			for i := range admitted.Spec.Containers {
				own := &submitted.Spec.Containers[i]
				c := &admitted.Spec.Containers[i]
				c.Env = append(c.Env[len(own.Env):], c.Env[:len(own.Env)]...)
				c.VolumeMounts = append(c.VolumeMounts[len(own.VolumeMounts):], c.VolumeMounts[:len(own.VolumeMounts)]...)
			}
		}}},
	{Mutant{"no-annotation", rule.R3_7, "adds no podpreset-<name> annotation"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			for _, k := range added(submitted, admitted) {
				delete(admitted.Annotations, k)
			}
		}}},
	{Mutant{"skips-init-containers", rule.R3_2, "leaves init containers alone"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			admitted.Spec.InitContainers = submitted.Spec.InitContainers
		}}},
	{Mutant{"duplicates-identical", rule.R3_4, "appends an env var again when the container already has an identical one"}, fault{
		after: func(submitted, admitted *corev1.Pod, matching []*v1alpha1.PodPreset) {
			if len(added(submitted, admitted)) == 0 {
				return // nothing applied (a conflict)
			}
			// Every container, init containers too, and the presets in the
			// order the reference applies them (R3.6).
			own := containers(submitted)
			ordered := slices.SortedFunc(slices.Values(matching), func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })
			for i, c := range containers(admitted) {
				for _, p := range ordered {
					for _, e := range defaults.Preset(p).Spec.Env {
						if slices.ContainsFunc(own[i].Env, func(have corev1.EnvVar) bool { return apiequality.Semantic.DeepEqual(have, e) }) {
							c.Env = append(c.Env, e)
						}
					}
				}
			}
		}}},
	{Mutant{"partial-apply", rule.R4_2, "on a conflict, still applies the presets that do not conflict"}, fault{
		around: func(ctx context.Context, a admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error {
			submitted := pod.DeepCopy()
			if err := next(ctx); err != nil {
				return err
			}
			matching, _ := merge.Select(submitted, env.presets)
			if len(merge.Apply(submitted, matching).Conflicts) == 0 {
				return nil
			}
			// The reference reported the conflict and applied nothing; now
			// each preset that does not conflict alone, quietly.
			for _, p := range matching {
				if len(merge.Apply(submitted, []*v1alpha1.PodPreset{p}).Conflicts) > 0 {
					continue
				}
				if err := env.quietPlugin([]*v1alpha1.PodPreset{p}).Admit(context.Background(), a, nil); err != nil {
					return err
				}
			}
			return nil
		}}},
	{Mutant{"wipes-env-on-conflict", rule.R4_4, "on a conflict, removes the env vars of every container"}, fault{
		after: func(submitted, admitted *corev1.Pod, matching []*v1alpha1.PodPreset) {
			if len(merge.Apply(submitted, matching).Conflicts) == 0 {
				return
			}
			for i := range admitted.Spec.Containers {
				admitted.Spec.Containers[i].Env = nil
			}
		}}},
	{Mutant{"no-conflict-event", rule.R4_3, "reports a conflict neither as an event nor as a warning"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, _ *corev1.Pod, _ *call, next func(context.Context) error) error {
			return next(warning.WithWarningRecorder(ctx, discardWarnings{}))
		},
		events: func(*corev1.ObjectReference) bool { return false }}},
	{Mutant{"events-on-dry-run", rule.R2_1, "records conflict events on dry runs too"}, fault{
		around: func(ctx context.Context, a admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error {
			// The reference's guard (R2.4, R2.5) holds: only its dry-run
			// check is missing.
			_, mirror := pod.Annotations[podpreset.MirrorPodAnnotation]
			if a.IsDryRun() && pod.Name != "" && pod.Annotations[merge.ExcludeAnnotation] != "true" && !mirror {
				matching, _ := merge.Select(pod, env.presets)
				conflict.Record(env.recorder, conflict.Target(pod, a.GetNamespace()), conflict.Reports(merge.Apply(pod, matching).Conflicts))
			}
			return next(ctx)
		}}},
}
