package fuzz

import (
	"context"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/rule"
)

// maxShrinkRuns bounds the cases one shrink runs; shrinkAtOnce is how many
// of them run at once.
const (
	maxShrinkRuns = 300
	shrinkAtOnce  = 4
)

// shrink makes a disagreeing case smaller, one simplification at a time,
// keeping each that still disagrees with one of the rules, until none
// does (greedy, as QuickCheck's shrinking): fewer presets, containers,
// items, labels, annotations, selector terms and pod fields. It returns
// the smallest case found and its disagreement (nil if the case no longer
// disagrees at all: a flake).
//
// Events are waited for only when the disagreement is about them
// (events): a settle window per run would make shrinking slow.
func (r runner) shrink(ctx context.Context, c Case, found oracle.Disagreement, events bool) (Case, *oracle.Disagreement) {
	fails := func(c Case) *oracle.Disagreement {
		ds, explainedBy, err := r.disagreements(ctx, c, events)
		if err != nil {
			return nil
		}
		return still(found, ds, explainedBy)
	}
	last := fails(c)
	if last == nil {
		return c, nil
	}
	// The first candidate of a round, the largest step, alone (it is
	// taken most often); the others shrinkAtOnce at a time, the first of
	// them in order that still disagrees taken: the case sequential trying
	// finds, in a fraction of the time where a case mostly waits for the
	// API server. One at a time when what was found may come from other
	// cases running beside it (presets of other namespaces, R2.2; state
	// kept, R6).
	atOnce := shrinkAtOnce
	if slices.ContainsFunc(found.Rules, func(id rule.ID) bool { return id == rule.R2_2 || id.Section() == "R6" }) {
		atOnce = 1
	}
	runs := 1
	for progress := true; progress && runs < maxShrinkRuns; {
		progress = false
		candidates := simplifications(c)
		for start, size := 0, 1; start < len(candidates) && !progress; start, size = start+size, atOnce {
			if runs >= maxShrinkRuns || ctx.Err() != nil {
				break
			}
			batch := candidates[start:min(start+size, len(candidates), start+maxShrinkRuns-runs)]
			results := make([]*oracle.Disagreement, len(batch))
			var wg sync.WaitGroup
			for i, smaller := range batch {
				wg.Go(func() { results[i] = fails(smaller) })
			}
			wg.Wait()
			runs += len(batch)
			if i := slices.IndexFunc(results, func(d *oracle.Disagreement) bool { return d != nil }); i >= 0 {
				c, last, progress = batch[i], results[i], true
			}
		}
	}
	return c, last
}

// still returns the disagreement of a smaller case that shows what was
// found: one the same hypothesis explains, when one explained it (named in
// it); otherwise one with a rule in common, explained by the hypothesis
// that explains the smaller case, if one does (what no hypothesis
// explained among other cases' presets may be explained alone). Nil when
// there is none.
func still(found oracle.Disagreement, ds []oracle.Disagreement, explainedBy []*oracle.Hypothesis) *oracle.Disagreement {
	if found.AsIf != "" {
		i := slices.IndexFunc(explainedBy, func(h *oracle.Hypothesis) bool { return h.Name == found.AsIf })
		if i < 0 || len(ds) == 0 {
			return nil
		}
		d := ds[0]
		d.Explain(explainedBy[i])
		return &d
	}
	for i := range ds {
		if slices.ContainsFunc(ds[i].Rules, func(r rule.ID) bool { return slices.Contains(found.Rules, r) }) {
			d := ds[i]
			if len(explainedBy) > 0 {
				d.Explain(explainedBy[0])
			}
			return &d
		}
	}
	return nil
}

// simplifications are the cases one step simpler than c, all valid.
func simplifications(c Case) []Case {
	var out []Case
	edit := func(f func(*Case) bool) {
		n := clone(c)
		if f(&n) {
			out = append(out, n)
		}
	}
	if n := len(c.Presets); n > 3 {
		// Many presets (a case at the edges): half of them at once first.
		edit(func(k *Case) bool { k.Presets = k.Presets[:n/2]; return true })
		edit(func(k *Case) bool { k.Presets = k.Presets[n/2:]; return true })
	}
	for i := range c.Presets {
		edit(func(n *Case) bool { n.Presets = slices.Delete(n.Presets, i, i+1); return len(n.Presets) > 0 })
	}
	if len(c.Others) > 0 {
		edit(func(n *Case) bool { n.Others = nil; return true })
	}
	if c.FollowUp != nil {
		edit(func(n *Case) bool { n.FollowUp = nil; return true })
	}
	if c.Recreate != nil {
		edit(func(n *Case) bool { n.Recreate = nil; return true })
		again := &v1alpha1.PodPreset{Spec: c.Recreate.Spec}
		for _, smaller := range itemSimplifications(again) {
			edit(func(n *Case) bool { n.Recreate.Spec = smaller.Spec; return true })
		}
	}
	if c.Owned {
		edit(func(n *Case) bool { n.Owned = false; return true })
	}
	for i := range c.Copied {
		edit(func(n *Case) bool { n.Copied = slices.Delete(n.Copied, i, i+1); return true })
	}
	if c.Pod.Name == "" {
		edit(func(n *Case) bool { n.Pod.Name, n.Pod.GenerateName, n.Owned = "website", "", false; return true })
	}
	for k := range c.Pod.Labels {
		edit(func(n *Case) bool { delete(n.Pod.Labels, k); return true })
	}
	for k := range c.Pod.Annotations {
		edit(func(n *Case) bool { delete(n.Pod.Annotations, k); return true })
	}
	for i := range c.Pod.Spec.InitContainers {
		edit(func(n *Case) bool {
			n.Pod.Spec.InitContainers = slices.Delete(n.Pod.Spec.InitContainers, i, i+1)
			return true
		})
	}
	if n := len(c.Pod.Spec.Containers); n > 3 {
		// Many containers (a case at the edges): half of them at once first.
		edit(func(k *Case) bool { k.Pod.Spec.Containers = k.Pod.Spec.Containers[:n/2]; return true })
	}
	for i := range c.Pod.Spec.Containers {
		edit(func(n *Case) bool {
			n.Pod.Spec.Containers = slices.Delete(n.Pod.Spec.Containers, i, i+1)
			return len(n.Pod.Spec.Containers) > 0
		})
	}
	for i, v := range c.Pod.Spec.Volumes {
		edit(func(n *Case) bool {
			n.Pod.Spec.Volumes = slices.Delete(n.Pod.Spec.Volumes, i, i+1)
			for j := range n.Pod.Spec.InitContainers {
				dropMounts(&n.Pod.Spec.InitContainers[j], v.Name)
			}
			for j := range n.Pod.Spec.Containers {
				dropMounts(&n.Pod.Spec.Containers[j], v.Name)
			}
			return true
		})
	}
	for ci := range slices.Concat(c.Pod.Spec.InitContainers, c.Pod.Spec.Containers) {
		container := func(n *Case) *corev1.Container {
			if ci < len(n.Pod.Spec.InitContainers) {
				return &n.Pod.Spec.InitContainers[ci]
			}
			return &n.Pod.Spec.Containers[ci-len(n.Pod.Spec.InitContainers)]
		}
		cc := container(&c)
		for i := range cc.Env {
			edit(func(n *Case) bool { k := container(n); k.Env = slices.Delete(k.Env, i, i+1); return true })
		}
		for i := range cc.EnvFrom {
			edit(func(n *Case) bool { k := container(n); k.EnvFrom = slices.Delete(k.EnvFrom, i, i+1); return true })
		}
		for i := range cc.VolumeMounts {
			edit(func(n *Case) bool {
				k := container(n)
				k.VolumeMounts = slices.Delete(k.VolumeMounts, i, i+1)
				return true
			})
		}
		if cc.Command != nil || cc.Ports != nil || cc.Resources.Limits != nil || cc.RestartPolicy != nil {
			edit(func(n *Case) bool {
				k := container(n)
				k.Command, k.Ports, k.Resources, k.RestartPolicy = nil, nil, corev1.ResourceRequirements{}, nil
				return true
			})
		}
	}
	if !equalSpecFields(c.Pod.Spec) {
		edit(func(n *Case) bool { clearSpecFields(&n.Pod.Spec); return true })
	}
	for pi := range c.Presets {
		out = append(out, presetSimplifications(c, pi)...)
	}
	return out
}

// presetSimplifications are the cases with preset pi one step simpler.
func presetSimplifications(c Case, pi int) []Case {
	var out []Case
	for _, smaller := range itemSimplifications(c.Presets[pi]) {
		n := clone(c)
		n.Presets[pi] = smaller
		out = append(out, n)
	}
	return out
}

// itemSimplifications are copies of a preset one step simpler (an item or
// a selector term fewer), each with an item left.
func itemSimplifications(p *v1alpha1.PodPreset) []*v1alpha1.PodPreset {
	var out []*v1alpha1.PodPreset
	edit := func(f func(q *v1alpha1.PodPreset)) {
		q := p.DeepCopy()
		f(q)
		if hasItems(q) {
			out = append(out, q)
		}
	}
	if n := len(p.Spec.Env); n > 3 {
		// Many items (a case at the edges): half of them at once first.
		edit(func(q *v1alpha1.PodPreset) { q.Spec.Env = q.Spec.Env[:n/2] })
		edit(func(q *v1alpha1.PodPreset) { q.Spec.Env = q.Spec.Env[n/2:] })
	}
	for i := range p.Spec.Env {
		edit(func(q *v1alpha1.PodPreset) { q.Spec.Env = slices.Delete(q.Spec.Env, i, i+1) })
	}
	for i := range p.Spec.EnvFrom {
		edit(func(q *v1alpha1.PodPreset) { q.Spec.EnvFrom = slices.Delete(q.Spec.EnvFrom, i, i+1) })
	}
	for i := range p.Spec.VolumeMounts {
		edit(func(q *v1alpha1.PodPreset) { q.Spec.VolumeMounts = slices.Delete(q.Spec.VolumeMounts, i, i+1) })
	}
	for i, v := range p.Spec.Volumes {
		edit(func(q *v1alpha1.PodPreset) {
			q.Spec.Volumes = slices.Delete(q.Spec.Volumes, i, i+1)
			q.Spec.VolumeMounts = slices.DeleteFunc(q.Spec.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == v.Name })
		})
	}
	for k := range p.Spec.Selector.MatchLabels {
		edit(func(q *v1alpha1.PodPreset) { delete(q.Spec.Selector.MatchLabels, k) })
	}
	for i := range p.Spec.Selector.MatchExpressions {
		edit(func(q *v1alpha1.PodPreset) {
			q.Spec.Selector.MatchExpressions = slices.Delete(q.Spec.Selector.MatchExpressions, i, i+1)
		})
	}
	return out
}

func hasItems(p *v1alpha1.PodPreset) bool {
	return len(p.Spec.Env)+len(p.Spec.EnvFrom)+len(p.Spec.Volumes)+len(p.Spec.VolumeMounts) > 0
}

func dropMounts(c *corev1.Container, volume string) {
	c.VolumeMounts = slices.DeleteFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == volume })
}

// clearSpecFields resets the pod fields podFields sets.
func clearSpecFields(s *corev1.PodSpec) {
	s.RestartPolicy, s.NodeSelector, s.Tolerations, s.Hostname, s.Subdomain = "", nil, nil, "", ""
	s.EnableServiceLinks, s.TerminationGracePeriodSeconds, s.SchedulingGates, s.OS, s.HostAliases = nil, nil, nil, nil, nil
}

func equalSpecFields(s corev1.PodSpec) bool {
	c := *s.DeepCopy()
	clearSpecFields(&c)
	return equalPodSpec(c, s)
}

func equalPodSpec(a, b corev1.PodSpec) bool {
	return a.RestartPolicy == b.RestartPolicy && maps.Equal(a.NodeSelector, b.NodeSelector) && len(a.Tolerations) == len(b.Tolerations) &&
		a.Hostname == b.Hostname && a.EnableServiceLinks == b.EnableServiceLinks && a.TerminationGracePeriodSeconds == b.TerminationGracePeriodSeconds &&
		len(a.SchedulingGates) == len(b.SchedulingGates) && a.OS == b.OS && len(a.HostAliases) == len(b.HostAliases)
}

// clone is a deep copy of a case.
func clone(c Case) Case {
	n := Case{Seed: c.Seed, Owned: c.Owned, Pod: c.Pod.DeepCopy(), Copied: slices.Clone(c.Copied)}
	if c.FollowUp != nil {
		f := *c.FollowUp
		n.FollowUp = &f
	}
	if c.Recreate != nil {
		n.Recreate = &Recreate{Preset: c.Recreate.Preset, Spec: *c.Recreate.Spec.DeepCopy()}
	}
	for _, p := range c.Presets {
		n.Presets = append(n.Presets, p.DeepCopy())
	}
	for _, p := range c.Others {
		n.Others = append(n.Others, p.DeepCopy())
	}
	return n
}
