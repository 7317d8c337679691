package fuzz

import (
	"math/rand/v2"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
)

// ApartPercent is the share of the cases where two presets or more select
// the pod (and none is invalid) whose selecting presets are set apart
// (apart).
const ApartPercent = 50

// apart sets apart, in ApartPercent of the cases where two presets or more
// select the pod, the keys of every selecting preset's items (R3.5), so
// that they conflict neither with each other nor with the pod's own, and
// gives two or three of them one same new envFrom entry. Items drawn from
// small pools make conflicts frequent, and a conflict leaves every preset
// out (R4.2), so without it few cases have presets applied together: the
// order they apply in (R3.3, R3.6) and an item two of them inject alike
// (R3.4, added once) would seldom show. It draws from a source of its own,
// so that the rest of every case is what the same seed made before, and
// leaves alone a case with an invalid preset.
func apart(seed uint64, c *Case) {
	g := gen{rand.New(rand.NewPCG(seed^0xa9a47, seed))}
	if slices.ContainsFunc(c.Presets, func(p *v1alpha1.PodPreset) bool { return len(model.Validate(p)) > 0 }) {
		return
	}
	var selecting []*v1alpha1.PodPreset
	for _, p := range c.Presets {
		s, err := metav1.LabelSelectorAsSelector(&p.Spec.Selector)
		if err == nil && s.Matches(labels.Set(c.Pod.Labels)) {
			selecting = append(selecting, p)
		}
	}
	if len(selecting) < 2 || !g.chance(ApartPercent) {
		return
	}
	for i, p := range selecting {
		setApart(p, strconv.Itoa(i))
	}
	e := g.envFrom()
	key := merge.EnvFromKey(&e)
	order := g.r.Perm(len(selecting))
	for _, i := range order[:min(len(order), 2+g.n(2))] {
		p := selecting[i]
		if !slices.ContainsFunc(p.Spec.EnvFrom, func(x corev1.EnvFromSource) bool { return merge.EnvFromKey(&x) == key }) {
			p.Spec.EnvFrom = append(p.Spec.EnvFrom, *e.DeepCopy())
		}
	}
}

// setApart gives every key of a preset's items the tag: env names and
// envFrom prefixes end in it (as valid names still), volume and mount
// names and mount paths too.
func setApart(p *v1alpha1.PodPreset, tag string) {
	s := &p.Spec
	for i := range s.Env {
		s.Env[i].Name += "_p" + tag
	}
	for i := range s.EnvFrom {
		s.EnvFrom[i].Prefix += "p" + tag + "_"
	}
	for i := range s.Volumes {
		s.Volumes[i].Name += "-p" + tag
	}
	for i := range s.VolumeMounts {
		m := &s.VolumeMounts[i]
		m.Name += "-p" + tag
		m.MountPath += "-p" + tag
	}
}
