package mutants

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	"presetsim.dev/presetsim/rule"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"

	podpreset "presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// decoratedMutants are the faults written from the specification, rule by
// rule, as decorators of the reference plug-in (see fault).
var decoratedMutants = []decoratedMutant{
	// R1.3
	{Mutant{"empty-selector-matches-nothing", rule.R1_3, "treats the empty selector {} as selecting no pod"}, fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			return slices.DeleteFunc(slices.Clone(all), func(p *v1alpha1.PodPreset) bool {
				return len(p.Spec.Selector.MatchLabels) == 0 && len(p.Spec.Selector.MatchExpressions) == 0
			})
		}}},
	// R2.1
	{Mutant{"dry-run-unmutated", rule.R2_1, "leaves server-side dry runs unmutated"}, fault{
		around: func(ctx context.Context, a admission.Attributes, _ *corev1.Pod, _ *call, next func(context.Context) error) error {
			if a.IsDryRun() {
				return nil
			}
			return next(ctx)
		}}},
	// R2.3
	{Mutant{"ignores-match-expressions", rule.R2_3, "matches by matchLabels alone, ignoring matchExpressions"}, fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			return copies(all, func(p *v1alpha1.PodPreset) { p.Spec.Selector.MatchExpressions = nil })
		}}},
	{Mutant{"first-label-only", rule.R2_3, "matches on the first matchLabels entry (by key) only"}, fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			return copies(all, func(p *v1alpha1.PodPreset) {
				if keys := slices.Sorted(maps.Keys(p.Spec.Selector.MatchLabels)); len(keys) > 1 {
					p.Spec.Selector.MatchLabels = map[string]string{keys[0]: p.Spec.Selector.MatchLabels[keys[0]]}
				}
			})
		}}},
	// The namespace's last preset by name, not in list order: a lister
	// returns presets in no fixed order, and a mutant that sometimes
	// behaves would make the mutation score a coin toss (it did, in CI).
	{Mutant{"applies-last-listed", rule.R2_3, "when any preset matches, applies the namespace's last preset by name instead (a loop variable's address kept)"}, fault{
		presets: func(pod *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			matching, _ := merge.Select(pod, all)
			if len(matching) == 0 || len(all) == 0 {
				return all
			}
			last := slices.MaxFunc(all, func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) }).DeepCopy()
			last.Spec.Selector = metav1.LabelSelector{}
			return []*v1alpha1.PodPreset{last}
		}}},
	// R2.4
	{Mutant{"exclude-any-value", rule.R2_4, "excludes a pod that has the exclude annotation with any value"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, _ *call, next func(context.Context) error) error {
			if _, ok := pod.Annotations[merge.ExcludeAnnotation]; ok {
				return nil
			}
			return next(ctx)
		}}},
	{Mutant{"exclude-case-insensitive", rule.R2_4, "excludes a pod whose exclude annotation is \"True\" or \"TRUE\""}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, _ *call, next func(context.Context) error) error {
			if strings.EqualFold(pod.Annotations[merge.ExcludeAnnotation], "true") {
				return nil
			}
			return next(ctx)
		}}},
	// R2.5
	{Mutant{"mutates-mirror-pods", rule.R2_5, "mutates mirror pods"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, _ *call, next func(context.Context) error) error {
			mirror, ok := pod.Annotations[podpreset.MirrorPodAnnotation]
			if !ok {
				return next(ctx)
			}
			delete(pod.Annotations, podpreset.MirrorPodAnnotation)
			err := next(ctx)
			pod.Annotations[podpreset.MirrorPodAnnotation] = mirror
			return err
		}}},
	// R2.6
	{Mutant{"skips-unnamed-pods", rule.R2_6, "leaves pods without a name alone, as a controller's pods (generateName) are"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, _ *call, next func(context.Context) error) error {
			if pod.Name == "" {
				return nil
			}
			return next(ctx)
		}}},
	// R3.1
	{Mutant{"no-volumes", rule.R3_1, "injects mounts but never adds the preset's volumes to the pod"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			admitted.Spec.Volumes = submitted.Spec.Volumes
		}}},
	{Mutant{"image-volume-as-emptydir", rule.R3_1, "reads presets through API types older than image volumes, as the webhooks built from their sources do: an image volume is injected without a source, which the API server makes an emptyDir"}, fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			return copies(all, func(p *v1alpha1.PodPreset) {
				for i := range p.Spec.Volumes {
					if p.Spec.Volumes[i].Image != nil {
						p.Spec.Volumes[i].VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
					}
				}
			})
		}}},
	// R3.2
	{Mutant{"first-container-only", rule.R3_2, "injects into the first app container only"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			for i := 1; i < len(admitted.Spec.Containers) && i < len(submitted.Spec.Containers); i++ {
				c, own := &admitted.Spec.Containers[i], submitted.Spec.Containers[i]
				c.Env, c.EnvFrom, c.VolumeMounts = own.Env, own.EnvFrom, own.VolumeMounts
			}
		}}},
	{Mutant{"ignores-envfrom", rule.R3_2, "never injects envFrom"}, fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			return copies(all, func(p *v1alpha1.PodPreset) { p.Spec.EnvFrom = nil })
		}}},
	// R3.4
	{Mutant{"duplicates-shared-envfrom", rule.R3_4, "adds an envFrom entry again for every further preset that injects it"}, fault{
		after: func(submitted, admitted *corev1.Pod, matching []*v1alpha1.PodPreset) {
			if len(added(submitted, admitted)) == 0 {
				return
			}
			for _, c := range containers(admitted) {
				for i, p := range matching {
					for _, e := range p.Spec.EnvFrom {
						for _, earlier := range matching[:i] {
							if slices.ContainsFunc(earlier.Spec.EnvFrom, func(x corev1.EnvFromSource) bool { return apiequality.Semantic.DeepEqual(x, e) }) {
								c.EnvFrom = append(c.EnvFrom, e)
								break
							}
						}
					}
				}
			}
		}}},
	{Mutant{"compares-undefaulted", rule.R3_4, "compares the preset's items with the pod's as if the API server had not defaulted the pod (fieldRef apiVersion, volume defaultMode)"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, _ *call, next func(context.Context) error) error {
			own := pod.DeepCopy()
			undefault(pod)
			err := next(ctx)
			restoreOwn(own, pod)
			return err
		}}},
	// R3.5
	{Mutant{"env-names-case-insensitive", rule.R3_5, "compares env var names without regard to case"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, _ *call, next func(context.Context) error) error {
			own := pod.DeepCopy()
			for _, c := range containers(pod) {
				for i := range c.Env {
					c.Env[i].Name = strings.ToUpper(c.Env[i].Name)
				}
			}
			err := next(ctx)
			restoreOwn(own, pod)
			return err
		}}},
	{Mutant{"envfrom-prefix-ignored", rule.R3_5, "keys envFrom entries by source alone, dropping prefixes"}, fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			return copies(all, func(p *v1alpha1.PodPreset) {
				for i := range p.Spec.EnvFrom {
					p.Spec.EnvFrom[i].Prefix = ""
				}
			})
		},
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, _ *call, next func(context.Context) error) error {
			own := pod.DeepCopy()
			for _, c := range containers(pod) {
				for i := range c.EnvFrom {
					c.EnvFrom[i].Prefix = ""
				}
			}
			err := next(ctx)
			restoreOwn(own, pod)
			return err
		}}},
	// R3.6
	{Mutant{"order-by-creation", rule.R3_6, "applies presets one by one, oldest (lowest resourceVersion) first"}, fault{
		around: func(ctx context.Context, a admission.Attributes, pod *corev1.Pod, env *call, _ func(context.Context) error) error {
			presets := slices.Clone(env.presets)
			sort.SliceStable(presets, func(i, j int) bool { return version(presets[i]) < version(presets[j]) })
			for _, p := range presets {
				if err := env.plugin([]*v1alpha1.PodPreset{p}).Admit(ctx, a, nil); err != nil {
					return err
				}
			}
			return nil
		}}},
	// R3.7
	{Mutant{"annotations-replaced", rule.R3_7, "replaces the pod's own annotations with its podpreset-<name> ones"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			if len(added(submitted, admitted)) == 0 {
				return
			}
			for k := range submitted.Annotations {
				delete(admitted.Annotations, k)
			}
		}}},
	{Mutant{"annotation-not-version", rule.R3_7, "writes \"applied\" as the annotation's value instead of the preset's resourceVersion"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			for _, k := range added(submitted, admitted) {
				admitted.Annotations[k] = "applied"
			}
		}}},
	{Mutant{"annotation-only-when-changed", rule.R3_7, "annotates the pod only when a preset added something to it"}, fault{
		after: func(submitted, admitted *corev1.Pod, _ []*v1alpha1.PodPreset) {
			if apiequality.Semantic.DeepEqual(submitted.Spec, admitted.Spec) {
				for _, k := range added(submitted, admitted) {
					delete(admitted.Annotations, k)
				}
			}
		}}},
	// R4.1
	{Mutant{"mount-paths-unchecked", rule.R4_1, "checks volume mounts by name only, so two mounts at one path pass"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error {
			own := pod.DeepCopy()
			matching, _ := merge.Select(pod, env.presets)
			for _, c := range containers(pod) {
				for i, m := range c.VolumeMounts {
					for _, p := range matching {
						if slices.ContainsFunc(p.Spec.VolumeMounts, func(x corev1.VolumeMount) bool { return x.MountPath == m.MountPath && x.Name != m.Name }) {
							c.VolumeMounts[i].MountPath = "/presetsim-hidden/" + strconv.Itoa(i)
						}
					}
				}
			}
			err := next(ctx)
			restoreOwn(own, pod)
			return err
		}}},
	{Mutant{"envfrom-never-compared", rule.R4_1, "never compares envFrom entries: an identical one is skipped, every other appended, clashes included"}, envFromNeverCompared},
	// R4.2
	{Mutant{"conflict-rejects", rule.R4_2, "refuses a pod that conflicts with a matching preset"}, fault{
		around: func(ctx context.Context, a admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error {
			matching, _ := merge.Select(pod, env.presets)
			if r := merge.Apply(pod, matching); len(r.Conflicts) > 0 {
				return admission.NewForbidden(a, errors.New(strings.Join(conflict.Messages(r.Conflicts), "; ")))
			}
			return next(ctx)
		}}},
	// R4.3
	{Mutant{"no-warnings", rule.R4_3, "records the conflict event but returns no admission warning"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, _ *corev1.Pod, _ *call, next func(context.Context) error) error {
			return next(warning.WithWarningRecorder(ctx, discardWarnings{}))
		}}},
	{Mutant{"no-owner-events", rule.R4_3, "records conflict events only on named pods, never on a controller owner"}, fault{
		events: func(ref *corev1.ObjectReference) bool { return ref.Kind == "Pod" }}},
	{Mutant{"trusts-annotations", rule.R4_3, "skips a preset whose podpreset-<name> annotation the pod already carries at its version (idempotence by annotation): a copied pod's conflict with it goes unwarned, its missing items unadded"}, fault{
		presets: func(pod *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			return slices.DeleteFunc(slices.Clone(all), func(p *v1alpha1.PodPreset) bool {
				v, ok := pod.Annotations[merge.AnnotationKey(p.Name)]
				return ok && v == p.ResourceVersion
			})
		}}},
	// R5.3
	{Mutant{"panics-on-conflict", rule.R5_3, "panics when a matching preset conflicts with the pod, as a real webhook did on a volume conflict: the request gets no answer, and under failurePolicy: Ignore the pod goes through untouched"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error {
			matching, _ := merge.Select(pod, env.presets)
			if r := merge.Apply(pod.DeepCopy(), matching); len(r.Conflicts) > 0 {
				var seen map[string]bool
				seen[r.Conflicts[0].Label()] = true // a map never made: panics, as the real one did
			}
			return next(ctx)
		}}},
	// R4.4
	{Mutant{"conflict-overrides", rule.R4_4, "on a conflict, the preset's item replaces the pod's own"}, fault{
		around: func(ctx context.Context, _ admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error {
			matching, _ := merge.Select(pod, env.presets)
			if r := merge.Apply(pod, matching); len(r.Conflicts) == 0 {
				return next(ctx)
			}
			for _, p := range matching {
				for _, c := range containers(pod) {
					c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool {
						return slices.ContainsFunc(p.Spec.Env, func(x corev1.EnvVar) bool { return x.Name == e.Name })
					})
					c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
						return slices.ContainsFunc(p.Spec.VolumeMounts, func(x corev1.VolumeMount) bool { return x.Name == m.Name || x.MountPath == m.MountPath })
					})
				}
				pod.Spec.Volumes = slices.DeleteFunc(pod.Spec.Volumes, func(v corev1.Volume) bool {
					return slices.ContainsFunc(p.Spec.Volumes, func(x corev1.Volume) bool { return x.Name == v.Name })
				})
			}
			return next(ctx)
		}}},
}

// envFromNeverCompared hides envFrom from the reference and, when the
// reference applied the presets, adds every matching preset's entries
// after it, in the presets' order: an entry identical to one the container
// has is skipped (R3.4 kept), any other appended, clashes included.
var envFromNeverCompared = fault{
	presets: withoutEnvFrom,
	after: func(submitted, admitted *corev1.Pod, matching []*v1alpha1.PodPreset) {
		if appliedWithoutEnvFrom(submitted, admitted, matching) {
			appendEnvFrom(admitted, matching, true)
		}
	},
}

// withoutEnvFrom is the presets as a plug-in that never looks at envFrom
// sees them.
func withoutEnvFrom(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
	return copies(all, func(p *v1alpha1.PodPreset) { p.Spec.EnvFrom = nil })
}

// appendEnvFrom adds the presets' envFrom entries, in the presets' order
// (R3.6), to every container of the pod: each entry unless an identical one
// is there when skipIdentical, else every entry, duplicates included.
func appendEnvFrom(pod *corev1.Pod, presets []*v1alpha1.PodPreset, skipIdentical bool) {
	ordered := slices.SortedFunc(slices.Values(presets), func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range containers(pod) {
		for _, p := range ordered {
			for _, e := range p.Spec.EnvFrom {
				if skipIdentical && slices.ContainsFunc(c.EnvFrom, func(x corev1.EnvFromSource) bool { return apiequality.Semantic.DeepEqual(x, e) }) {
					continue
				}
				c.EnvFrom = append(c.EnvFrom, *e.DeepCopy())
			}
		}
	}
}

// appliedWithoutEnvFrom reports whether the reference applied the matching
// presets, stripped of their envFrom, to the pod: it added their
// annotations, or, for a pod submitted with them already (a copy of a
// mutated pod, which it leaves as it is, R3.8), the pod is one it mutates
// (neither excluded nor a mirror pod) and the stripped presets do not
// conflict with it.
func appliedWithoutEnvFrom(submitted, admitted *corev1.Pod, matching []*v1alpha1.PodPreset) bool {
	if len(added(submitted, admitted)) > 0 {
		return true
	}
	if len(matching) == 0 || submitted.Annotations[merge.ExcludeAnnotation] == "true" {
		return false
	}
	if _, mirror := submitted.Annotations[podpreset.MirrorPodAnnotation]; mirror {
		return false
	}
	for _, p := range matching {
		if _, had := submitted.Annotations[merge.AnnotationKey(p.Name)]; !had {
			return false
		}
	}
	_, conflicts := merge.Merge(submitted, withoutEnvFrom(submitted, matching), merge.Variant{})
	return len(conflicts) == 0
}

// discardWarnings drops admission warnings.
type discardWarnings struct{}

func (discardWarnings) AddWarning(string, string) {}

// version is a preset's resourceVersion as a number, for creation order.
func version(p *v1alpha1.PodPreset) int64 {
	v, _ := strconv.ParseInt(p.ResourceVersion, 10, 64)
	return v
}

// undefault removes what the API server defaults in the items presets are
// compared with: a fieldRef's apiVersion and a volume's defaultMode.
func undefault(pod *corev1.Pod) {
	for _, c := range containers(pod) {
		for i := range c.Env {
			if f := c.Env[i].ValueFrom; f != nil && f.FieldRef != nil {
				f.FieldRef.APIVersion = ""
			}
		}
	}
	for i := range pod.Spec.Volumes {
		switch v := &pod.Spec.Volumes[i]; {
		case v.Secret != nil:
			v.Secret.DefaultMode = nil
		case v.ConfigMap != nil:
			v.ConfigMap.DefaultMode = nil
		}
	}
}

// restoreOwn puts the pod's own items back as they were submitted after a
// fault disguised them: they kept their positions, and whatever was
// injected follows them.
func restoreOwn(own, pod *corev1.Pod) {
	copy(pod.Spec.Volumes, own.Spec.Volumes)
	ownContainers, got := containers(own), containers(pod)
	for i := range got {
		if i >= len(ownContainers) {
			break
		}
		copy(got[i].Env, ownContainers[i].Env)
		copy(got[i].EnvFrom, ownContainers[i].EnvFrom)
		copy(got[i].VolumeMounts, ownContainers[i].VolumeMounts)
	}
}

// Kubernetes119Module is the name of a module that behaves as the in-tree
// plug-in of Kubernetes 1.19 did, for profiles/kubernetes-1.19.yaml: a
// conflict only logged (no event, no warning) and envFrom entries never
// compared, every preset's appended.
const Kubernetes119Module = "kubernetes-1.19"

// kubernetes119 is the reference with the 1.19 plug-in's differences.
func kubernetes119() fault {
	return fault{
		presets: withoutEnvFrom,
		// Only to a pod the plug-in annotated now: one readmitted with the
		// annotations gets nothing again, as the profile's model has it.
		// The 1.19 plug-in, which the API server runs again after a
		// webhook's change as it does every in-tree plug-in, appended the
		// entries again then (docs/implementations.md).
		after: func(submitted, admitted *corev1.Pod, matching []*v1alpha1.PodPreset) {
			if len(added(submitted, admitted)) > 0 {
				appendEnvFrom(admitted, matching, false)
			}
		},
		around: func(ctx context.Context, _ admission.Attributes, _ *corev1.Pod, _ *call, next func(context.Context) error) error {
			return next(warning.WithWarningRecorder(ctx, discardWarnings{}))
		},
		events: func(*corev1.ObjectReference) bool { return false },
	}
}
