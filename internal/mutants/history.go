package mutants

import (
	"context"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/conflict"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/rule"
)

// historyMutants break R6, state over time: each keeps state across the
// admissions one plug-in instance decides (fresh makes it, per instance),
// as a real implementation's cache or memo would, so that a single
// admission into a fresh namespace never shows the fault.
var historyMutants = []statefulMutant{
	{Mutant: Mutant{"conflict-reported-once", rule.R6_3, "reports a conflict for the first pod that has it; later pods with the same conflict are admitted unchanged, unwarned"},
		fresh: conflictReportedOnce},
	{Mutant: Mutant{"carries-pods-env", rule.R6_2, "writes into the presets it read: each pod's own env vars join the matching presets' for the pods after it (dry runs too)"},
		fresh: carriesPodsEnv},
	{Mutant: Mutant{"stale-after-recreate", rule.R6_1, "keeps the first version of a preset it saw under a name: one deleted and created again under that name applies as it was"},
		fresh: staleAfterRecreate},
}

// conflictReportedOnce remembers the conflicts it reported, by namespace
// and message, and says nothing of them again.
func conflictReportedOnce() fault {
	var mu sync.Mutex
	reported := map[string]bool{}
	return fault{around: func(ctx context.Context, a admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error {
		matching, _ := merge.Select(pod, env.presets)
		r := merge.Apply(pod.DeepCopy(), matching)
		if len(r.Conflicts) == 0 {
			return next(ctx)
		}
		key := a.GetNamespace() + "\n" + strings.Join(conflict.Messages(r.Conflicts), "\n")
		mu.Lock()
		seen := reported[key]
		reported[key] = true
		mu.Unlock()
		if !seen {
			return next(ctx)
		}
		return env.quietPlugin(env.presets).Admit(warning.WithWarningRecorder(ctx, discardWarnings{}), a, nil)
	}}
}

// carriesPodsEnv adds to each preset the env vars of the pods it matched
// before, as an implementation that merges into the objects its cache
// holds would.
func carriesPodsEnv() fault {
	var mu sync.Mutex
	carried := map[types.UID][]corev1.EnvVar{}
	return fault{
		presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
			mu.Lock()
			defer mu.Unlock()
			out := make([]*v1alpha1.PodPreset, len(all))
			for i, p := range all {
				out[i] = p
				if extra := carried[p.UID]; len(extra) > 0 {
					out[i] = p.DeepCopy()
					out[i].Spec.Env = append(out[i].Spec.Env, extra...)
				}
			}
			return out
		},
		after: func(submitted, _ *corev1.Pod, matching []*v1alpha1.PodPreset) {
			mu.Lock()
			defer mu.Unlock()
			for _, p := range matching {
				for _, c := range containers(submitted) {
					for _, e := range c.Env {
						known := func(x corev1.EnvVar) bool { return x.Name == e.Name }
						if !slices.ContainsFunc(p.Spec.Env, known) && !slices.ContainsFunc(carried[p.UID], known) {
							carried[p.UID] = append(carried[p.UID], e)
						}
					}
				}
			}
		},
	}
}

// staleAfterRecreate serves, for every preset name, the first object it
// listed under that name, until the plug-in restarts.
func staleAfterRecreate() fault {
	var mu sync.Mutex
	first := map[string]*v1alpha1.PodPreset{}
	return fault{presets: func(_ *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset {
		mu.Lock()
		defer mu.Unlock()
		out := make([]*v1alpha1.PodPreset, len(all))
		for i, p := range all {
			key := p.Namespace + "/" + p.Name
			if old, ok := first[key]; ok && old.UID != p.UID {
				out[i] = old
				continue
			}
			first[key] = p
			out[i] = p
		}
		return out
	}}
}
