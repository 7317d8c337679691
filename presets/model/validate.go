package model

import (
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// Invalid is one reason the specification refuses a preset: the rule and
// the field error, whose path a refusal must name (R1.8).
type Invalid struct {
	Rule rule.ID
	Err  *field.Error
}

func (i Invalid) String() string { return string(i.Rule) + " " + i.Err.Error() }

// Validate returns every reason R1.3–R1.6 refuse a preset at creation;
// none means the API must accept it (R1.2: the items' own schemas are the
// core types', which the API server checks as for a pod, and which
// Validate leaves to it). Under a profile that declares validation: schema
// or none, these reasons are the declared difference.
func Validate(p *v1alpha1.PodPreset) []Invalid {
	var out []Invalid
	add := func(r rule.ID, errs ...*field.Error) {
		for _, e := range errs {
			out = append(out, Invalid{Rule: r, Err: e})
		}
	}
	spec := field.NewPath("spec")

	// R1.3: a valid label selector, as metav1 validates one.
	add(rule.R1_3, metav1validation.ValidateLabelSelector(&p.Spec.Selector, metav1validation.LabelSelectorValidationOptions{}, spec.Child("selector"))...)

	// R1.4: something to inject.
	s := p.Spec
	if len(s.Env)+len(s.EnvFrom)+len(s.Volumes)+len(s.VolumeMounts) == 0 {
		add(rule.R1_4, field.Required(spec, "at least one of env, envFrom, volumes or volumeMounts must be set"))
	}

	// R1.5: names and keys within the preset.
	volumes := map[string]bool{}
	for i, v := range s.Volumes {
		path := spec.Child("volumes").Index(i).Child("name")
		for _, msg := range validation.IsDNS1123Label(v.Name) {
			add(rule.R1_5, field.Invalid(path, v.Name, msg))
		}
		if volumes[v.Name] {
			add(rule.R1_5, field.Duplicate(path, v.Name))
		}
		volumes[v.Name] = true
	}
	paths := map[string]bool{}
	for i, m := range s.VolumeMounts {
		path := spec.Child("volumeMounts").Index(i)
		if !volumes[m.Name] {
			add(rule.R1_5, field.Invalid(path.Child("name"), m.Name, "does not name a volume of this preset"))
		}
		if paths[m.MountPath] {
			add(rule.R1_5, field.Duplicate(path.Child("mountPath"), m.MountPath))
		}
		paths[m.MountPath] = true
	}
	envNames := map[string]bool{}
	for i, e := range s.Env {
		for _, msg := range validation.IsRelaxedEnvVarName(e.Name) {
			add(rule.R1_5, field.Invalid(spec.Child("env").Index(i).Child("name"), e.Name, msg))
		}
		if envNames[e.Name] {
			add(rule.R1_5, field.Duplicate(spec.Child("env").Index(i), e.Name))
		}
		envNames[e.Name] = true
	}
	envFromKeys := map[[3]string]bool{}
	for i, e := range s.EnvFrom {
		if (e.ConfigMapRef == nil) == (e.SecretRef == nil) {
			add(rule.R1_5, field.Invalid(spec.Child("envFrom").Index(i), "", "must set exactly one of configMapRef or secretRef"))
		}
		if k := merge.EnvFromKey(&e); envFromKeys[k] {
			add(rule.R1_5, field.Duplicate(spec.Child("envFrom").Index(i), merge.EnvFromLabel(&e)))
		} else {
			envFromKeys[k] = true
		}
	}
	// Keys are unique within a preset (R3.5's: a mount's name too), so
	// that a preset never conflicts with itself.
	mountNames := map[string]bool{}
	for i, m := range s.VolumeMounts {
		if mountNames[m.Name] {
			add(rule.R1_5, field.Duplicate(spec.Child("volumeMounts").Index(i).Child("name"), m.Name))
		}
		mountNames[m.Name] = true
	}

	// R1.6: the name fits the pod annotation's name part.
	if len(p.Name) > v1alpha1.MaxNameLength {
		add(rule.R1_6, field.TooLong(field.NewPath("metadata", "name"), p.Name, v1alpha1.MaxNameLength))
	}
	return out
}
