package fuzz

import (
	"math/rand/v2"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// InvalidPercent of the cases have one preset the specification refuses
// (R1.3–R1.6): its API must refuse it, naming the field (R1.8), unless
// the profile declares validation: schema or none.
const InvalidPercent = 8

// breakers make a valid preset invalid, one way each; model.Validate
// says why (their names are for reading a case, not for judging it).
var breakers = []struct {
	name  string
	apply func(g gen, p *v1alpha1.PodPreset)
}{
	{"an unknown selector operator", func(g gen, p *v1alpha1.PodPreset) {
		p.Spec.Selector.MatchExpressions = append(p.Spec.Selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: g.pick(labelKeys), Operator: "Inn", Values: []string{g.pick(labelValues)}})
	}},
	{"In without values", func(g gen, p *v1alpha1.PodPreset) {
		p.Spec.Selector.MatchExpressions = append(p.Spec.Selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: g.pick(labelKeys), Operator: metav1.LabelSelectorOpIn})
	}},
	{"Exists with values", func(g gen, p *v1alpha1.PodPreset) {
		p.Spec.Selector.MatchExpressions = append(p.Spec.Selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: g.pick(labelKeys), Operator: metav1.LabelSelectorOpExists, Values: []string{g.pick(labelValues)}})
	}},
	{"an invalid label key", func(g gen, p *v1alpha1.PodPreset) {
		if p.Spec.Selector.MatchLabels == nil {
			p.Spec.Selector.MatchLabels = map[string]string{}
		}
		p.Spec.Selector.MatchLabels["-"+g.pick(labelKeys)] = g.pick(labelValues)
	}},
	{"an invalid label value", func(g gen, p *v1alpha1.PodPreset) {
		p.Spec.Selector.MatchExpressions = append(p.Spec.Selector.MatchExpressions, metav1.LabelSelectorRequirement{Key: g.pick(labelKeys), Operator: metav1.LabelSelectorOpNotIn, Values: []string{g.pick(labelValues) + "!"}})
	}},
	{"nothing to inject", func(_ gen, p *v1alpha1.PodPreset) {
		p.Spec = v1alpha1.PodPresetSpec{Selector: p.Spec.Selector}
	}},
	{"a mount naming no volume", func(g gen, p *v1alpha1.PodPreset) {
		p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, corev1.VolumeMount{Name: "missing", MountPath: "/missing"})
	}},
	{"a volume name that is no DNS label", func(g gen, p *v1alpha1.PodPreset) {
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "Bad_Name", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	}},
	{"two volumes of one name", func(g gen, p *v1alpha1.PodPreset) {
		v := g.volume(false)
		p.Spec.Volumes = append(p.Spec.Volumes, v, *v.DeepCopy())
	}},
	{"two mounts at one path", func(g gen, p *v1alpha1.PodPreset) {
		v := g.volume(false)
		v.Name = "twice"
		m := g.mount(v.Name)
		p.Spec.Volumes = append(p.Spec.Volumes, v)
		p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, m, m)
	}},
	{"two env vars of one name", func(g gen, p *v1alpha1.PodPreset) {
		e := g.envVar(false)
		twice := g.envVar(false)
		twice.Name = e.Name
		p.Spec.Env = append(p.Spec.Env, e, twice)
	}},
	{"two envFrom entries of one key", func(g gen, p *v1alpha1.PodPreset) {
		e := g.envFrom()
		twice := *e.DeepCopy()
		p.Spec.EnvFrom = append(p.Spec.EnvFrom, e, twice)
	}},
	{"two mounts of one name", func(g gen, p *v1alpha1.PodPreset) {
		v := g.volume(false)
		v.Name = "twice"
		p.Spec.Volumes = append(p.Spec.Volumes, v)
		p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: "/twice/a"}, corev1.VolumeMount{Name: v.Name, MountPath: "/twice/b"})
	}},
	{"an env name with '='", func(g gen, p *v1alpha1.PodPreset) {
		e := g.envVar(false)
		e.Name = g.pick(envNames) + "=1"
		p.Spec.Env = append(p.Spec.Env, e)
	}},
	{"an envFrom entry with both sources", func(g gen, p *v1alpha1.PodPreset) {
		name := corev1.LocalObjectReference{Name: g.pick(objectNames)}
		p.Spec.EnvFrom = append(p.Spec.EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: name}, SecretRef: &corev1.SecretEnvSource{LocalObjectReference: name}})
	}},
	{"a 54-character name", func(_ gen, p *v1alpha1.PodPreset) {
		p.Name = p.Name + "-" + strings.Repeat("x", v1alpha1.MaxNameLength-len(p.Name))
	}},
}

// breakOne makes one of a case's presets (in the pod's namespace) invalid,
// in InvalidPercent of the cases. It draws from a source of its own, so
// that the rest of every case is what the same seed made before invalid
// presets were generated.
func breakOne(seed uint64, c *Case) {
	g := gen{rand.New(rand.NewPCG(seed^0x5eed1, seed))}
	if !g.chance(InvalidPercent) || len(c.Presets) == 0 {
		return
	}
	b := breakers[g.n(len(breakers))]
	b.apply(g, c.Presets[g.n(len(c.Presets))])
}
