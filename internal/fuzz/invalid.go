package fuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
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

// InvalidPreset is a preset of a case that the specification refuses.
type InvalidPreset struct {
	Preset *v1alpha1.PodPreset
	// Reasons are model.Validate's.
	Reasons []model.Invalid
	// Err is the implementation API's refusal; nil when it stored the
	// preset.
	Err error
	// Unvalidated: the backend runs no API server validation (offline),
	// so the preset was not created and is not judged.
	Unvalidated bool
}

// validationDeclared reports whether the profile declares that its API
// does not enforce R1.3–R1.8 (validation: schema or none).
func validationDeclared(w *harness.World) bool {
	v := w.Profile.Spec.Behaviour.Validation
	return v == profile.ValidationSchema || v == profile.ValidationNone
}

// invalidDisagreements judges a case's invalid preset: the API must refuse
// it (R1.3–R1.6, by the first reason's rule) with a message that names one
// of the offending field paths (R1.8). Under a declared validation: schema
// or none, either answer agrees.
func invalidDisagreements(w *harness.World, inv *InvalidPreset) []Disagreement {
	if inv == nil || inv.Unvalidated || validationDeclared(w) {
		return nil
	}
	var rules, reasons []string
	for _, r := range inv.Reasons {
		if !slices.Contains(rules, r.Rule) {
			rules = append(rules, r.Rule)
		}
		reasons = append(reasons, r.Err.Error())
	}
	if inv.Err == nil {
		return []Disagreement{{Rules: rules,
			Summary: fmt.Sprintf("the invalid preset %s was stored; the specification refuses it: %s", inv.Preset.Name, oneLine(reasons[0])),
			Detail:  strings.Join(reasons, "\n")}}
	}
	msg := inv.Err.Error()
	for _, r := range inv.Reasons {
		if namesPath(msg, w.Profile.Message(r.Err.Field)) {
			return nil
		}
	}
	return []Disagreement{{Rules: []string{"R1.8"},
		Summary: fmt.Sprintf("the invalid preset %s was refused without naming %s: %s", inv.Preset.Name, inv.Reasons[0].Err.Field, oneLine(msg)),
		Detail:  msg}}
}

// namesPath reports whether a refusal names a field path: the path itself,
// or the list item it belongs to ("spec.volumes[1]" for a duplicate
// "spec.volumes[1].name", as the API server reports a list-map key).
func namesPath(msg, path string) bool {
	if strings.Contains(msg, path) {
		return true
	}
	if i := strings.LastIndex(path, "."); i > 0 && strings.HasSuffix(path[:i], "]") {
		return strings.Contains(msg, path[:i])
	}
	return false
}
