package model

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// TestValidate: each rule of R1.3–R1.6 refuses what it names (keys unique
// within a preset, as R3.5 keys them), at the field
// path a refusal must carry (R1.8), and nothing else is refused.
func TestValidate(t *testing.T) {
	valid := func() *v1alpha1.PodPreset {
		return &v1alpha1.PodPreset{
			ObjectMeta: metav1.ObjectMeta{Name: "db"},
			Spec: v1alpha1.PodPresetSpec{
				Selector:     metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Env:          []corev1.EnvVar{{Name: "db.host-1", Value: "x"}},
				EnvFrom:      []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
				Volumes:      []corev1.Volume{{Name: "data"}},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
			},
		}
	}
	for _, tc := range []struct {
		name string
		edit func(p *v1alpha1.PodPreset)
		// want: "rule path", one per reason, in order; none when valid.
		want []string
	}{
		{"valid", func(*v1alpha1.PodPreset) {}, nil},
		{"the empty selector matches all pods", func(p *v1alpha1.PodPreset) { p.Spec.Selector = metav1.LabelSelector{} }, nil},
		{"a 53-character name", func(p *v1alpha1.PodPreset) { p.Name = strings.Repeat("a", 53) }, nil},
		{"an unknown operator", func(p *v1alpha1.PodPreset) {
			p.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Inn", Values: []string{"a"}}}
		}, []string{"R1.3 spec.selector.matchExpressions[0].operator"}},
		{"In without values", func(p *v1alpha1.PodPreset) {
			p.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn}}
		}, []string{"R1.3 spec.selector.matchExpressions[0].values"}},
		{"Exists with values", func(p *v1alpha1.PodPreset) {
			p.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists, Values: []string{"a"}}}
		}, []string{"R1.3 spec.selector.matchExpressions[0].values"}},
		{"an invalid label key", func(p *v1alpha1.PodPreset) { p.Spec.Selector.MatchLabels = map[string]string{"-app": "web"} },
			[]string{"R1.3 spec.selector.matchLabels"}},
		{"an invalid label value", func(p *v1alpha1.PodPreset) { p.Spec.Selector.MatchLabels = map[string]string{"app": "web!"} },
			[]string{"R1.3 spec.selector.matchLabels"}},
		{"nothing to inject", func(p *v1alpha1.PodPreset) { p.Spec = v1alpha1.PodPresetSpec{Selector: p.Spec.Selector} },
			[]string{"R1.4 spec"}},
		{"a mount naming no volume", func(p *v1alpha1.PodPreset) { p.Spec.VolumeMounts[0].Name = "other" },
			[]string{"R1.5 spec.volumeMounts[0].name"}},
		{"a volume name that is no DNS label", func(p *v1alpha1.PodPreset) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "Data"})
		}, []string{"R1.5 spec.volumes[1].name"}},
		{"two volumes of one name", func(p *v1alpha1.PodPreset) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data"})
		}, []string{"R1.5 spec.volumes[1].name"}},
		{"two mounts at one path", func(p *v1alpha1.PodPreset) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "logs"})
			p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, corev1.VolumeMount{Name: "logs", MountPath: "/data"})
		}, []string{"R1.5 spec.volumeMounts[1].mountPath"}},
		{"two mounts of one name", func(p *v1alpha1.PodPreset) {
			p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/other"})
		}, []string{"R1.5 spec.volumeMounts[1].name"}},
		{"two env vars of one name", func(p *v1alpha1.PodPreset) {
			p.Spec.Env = append(p.Spec.Env, corev1.EnvVar{Name: "db.host-1", Value: "y"})
		}, []string{"R1.5 spec.env[1]"}},
		{"env names that differ in case only", func(p *v1alpha1.PodPreset) {
			p.Spec.Env = append(p.Spec.Env, corev1.EnvVar{Name: "DB.HOST-1", Value: "y"})
		}, nil},
		{"two envFrom entries of one key", func(p *v1alpha1.PodPreset) {
			e := *p.Spec.EnvFrom[0].DeepCopy()
			e.ConfigMapRef.Optional = new(true)
			p.Spec.EnvFrom = append(p.Spec.EnvFrom, e)
		}, []string{"R1.5 spec.envFrom[1]"}},
		{"envFrom entries of one source with other prefixes", func(p *v1alpha1.PodPreset) {
			e := *p.Spec.EnvFrom[0].DeepCopy()
			e.Prefix = "DB_"
			p.Spec.EnvFrom = append(p.Spec.EnvFrom, e)
		}, nil},
		{"a ConfigMap and a Secret of one name", func(p *v1alpha1.PodPreset) {
			p.Spec.EnvFrom = append(p.Spec.EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}})
		}, nil},
		{"an env name with '='", func(p *v1alpha1.PodPreset) { p.Spec.Env[0].Name = "A=B" },
			[]string{"R1.5 spec.env[0].name"}},
		{"an envFrom entry with both sources", func(p *v1alpha1.PodPreset) {
			p.Spec.EnvFrom[0].SecretRef = &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}
		}, []string{"R1.5 spec.envFrom[0]"}},
		{"an envFrom entry with no source", func(p *v1alpha1.PodPreset) { p.Spec.EnvFrom[0].ConfigMapRef = nil },
			[]string{"R1.5 spec.envFrom[0]"}},
		{"a 54-character name", func(p *v1alpha1.PodPreset) { p.Name = strings.Repeat("a", 54) },
			[]string{"R1.6 metadata.name"}},
		{"only env and envFrom", func(p *v1alpha1.PodPreset) { p.Spec.Volumes, p.Spec.VolumeMounts = nil, nil }, nil},
		{"only envFrom and a volume", func(p *v1alpha1.PodPreset) { p.Spec.Env, p.Spec.VolumeMounts = nil, nil }, nil},
		{"only a volume and its mount", func(p *v1alpha1.PodPreset) { p.Spec.Env, p.Spec.EnvFrom = nil, nil }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := valid()
			tc.edit(p)
			var got []string
			for _, i := range Validate(p) {
				got = append(got, string(i.Rule)+" "+i.Err.Field)
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("Validate: %v, want %v", Validate(p), tc.want)
			}
			for _, i := range Validate(p) {
				if want := string(i.Rule) + " " + i.Err.Field + ": "; !strings.HasPrefix(i.String(), want) {
					t.Errorf("String() = %q, want it to start with %q", i.String(), want)
				}
			}
		})
	}
}
