package fuzz

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
)

// EdgePercent is the share of cases taken to the edges of what the API
// accepts (R6.4): each such case gets one or more of the edges below.
const EdgePercent = 12

// The edges' sizes, at or past those R6.4 names.
const (
	// MaxPresetName is the longest preset name: its applied annotation's
	// name part, "podpreset-<name>", may have 63 characters (R1.2).
	MaxPresetName = 53
	// edgePodName is the length of a long pod name: a DNS subdomain may
	// have 253, and a history's pod adds AgainSuffix.
	edgePodName = 253 - len(AgainSuffix)
	// manyPresets is how many presets a case with many selects its pod
	// with, at least.
	manyPresets = 10
	// manyItems is how many env vars a preset with many items has, at
	// least.
	manyItems = 40
	// manyContainers is how many app containers a pod with many has, at
	// least (and half as many init containers).
	manyContainers = 6
)

// edges takes a case, in EdgePercent of the cases, to one or more edges:
// every preset named at the longest a name may be, with dots; the pod
// named at the longest (when it has a name); ten or more presets that
// select the pod, half of them with items no other has (so that many
// apply at once) and half from the pools (so that many conflict); a
// preset with forty or more env vars; a pod with many app and init
// containers. It draws from a source of its own, so that the rest of every
// case is what the same seed made before, and leaves alone a case with an
// invalid preset (whose fault may be its name).
func edges(seed uint64, c *Case) {
	g := gen{rand.New(rand.NewPCG(seed^0xed9e5, seed))}
	if !g.chance(EdgePercent) || slices.ContainsFunc(c.Presets, func(p *v1alpha1.PodPreset) bool { return len(model.Validate(p)) > 0 }) {
		return
	}
	kinds := []func(gen, *Case){longNames, manyMatching, manyItemsIn, manyContainersIn}
	picked := false
	for _, k := range kinds {
		if g.chance(40) {
			k(g, c)
			picked = true
		}
	}
	if !picked {
		kinds[g.n(len(kinds))](g, c)
	}
}

// longName is a valid preset name of MaxPresetName characters that
// starts with base and holds dots.
func longName(base string) string {
	name := base + ".edge."
	return name + strings.Repeat("x", MaxPresetName-len(name))
}

// longNames names every preset (and the pod, when it has a name) at the
// longest, with dots.
func longNames(g gen, c *Case) {
	for _, p := range slices.Concat(c.Presets, c.Others) {
		p.Name = longName(p.Name)
	}
	if c.Pod.Name != "" {
		name := c.Pod.Name + ".edge."
		c.Pod.Name = name + strings.Repeat("y", edgePodName-len(name))
	}
}

// manyMatching adds ten or more presets that select the pod: with the
// empty selector or one of the pod's own labels, each injecting an env var
// and a volume of its own, so that they apply together. (Their items are
// not drawn from the pools: ten presets that conflict would record more
// than ten similar events about one pod, which an API server's event
// recorder combines into one, whose messages can no longer be compared.)
func manyMatching(g gen, c *Case) {
	labels := slices.Sorted(maps.Keys(c.Pod.Labels))
	for i := range manyPresets + g.n(3) {
		name := fmt.Sprintf("many-%02d", i)
		p := &v1alpha1.PodPreset{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: v1alpha1.PodPresetSpec{
				Env:     []corev1.EnvVar{{Name: fmt.Sprintf("MANY_%02d", i), Value: fmt.Sprint(i)}},
				Volumes: []corev1.Volume{{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			},
		}
		if len(labels) > 0 && g.chance(50) {
			k := labels[g.n(len(labels))]
			p.Spec.Selector.MatchLabels = map[string]string{k: c.Pod.Labels[k]}
		}
		c.Presets = append(c.Presets, p)
	}
}

// manyItemsIn gives one preset forty or more env vars of names of their
// own, and a few more volumes with their mounts.
func manyItemsIn(g gen, c *Case) {
	p := c.Presets[g.n(len(c.Presets))]
	for i := range manyItems + g.n(10) {
		p.Spec.Env = append(p.Spec.Env, corev1.EnvVar{Name: fmt.Sprintf("ITEM_%03d", i), Value: strings.Repeat("v", 1+i%7)})
	}
	for i := range 4 {
		name := fmt.Sprintf("item-vol-%d", i)
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: "/items/" + name})
	}
}

// manyContainersIn gives the pod many app containers and half as many
// init containers, each with items of its own.
func manyContainersIn(g gen, c *Case) {
	_, mirror := c.Pod.Annotations[corev1.MirrorPodAnnotationKey]
	apps := manyContainers + g.n(3)
	add := func(name string) corev1.Container {
		k := g.container(name, c.Pod.Spec.Volumes, mirror)
		k.Ports = nil // ports made unique by a hash of the name could collide, and the API server warns of that
		return k
	}
	for i := len(c.Pod.Spec.Containers); i < apps; i++ {
		c.Pod.Spec.Containers = append(c.Pod.Spec.Containers, add(fmt.Sprintf("many-%d", i)))
	}
	for i := len(c.Pod.Spec.InitContainers); i < apps/2; i++ {
		c.Pod.Spec.InitContainers = append(c.Pod.Spec.InitContainers, add(fmt.Sprintf("init-%d", i)))
	}
}
