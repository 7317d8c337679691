package merge

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// BenchmarkSelectApply measures what admission does per pod: select the
// matching presets of a namespace and merge them, with 1, 10 and 100 presets
// in the namespace, all of which match. It reports pods/s.
func BenchmarkSelectApply(b *testing.B) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "website", Labels: map[string]string{"role": "frontend"}},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
			Containers: []corev1.Container{
				{Name: "web", Image: "ecorp/website", Env: []corev1.EnvVar{{Name: "MODE", Value: "prod"}}},
				{Name: "sidecar", Image: "ecorp/proxy"},
			},
		},
	}
	for _, n := range []int{1, 10, 100} {
		presets := make([]*v1alpha1.PodPreset, n)
		for i := range presets {
			name := fmt.Sprintf("preset-%03d", i)
			presets[i] = &v1alpha1.PodPreset{
				ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), ResourceVersion: "1"},
				Spec: v1alpha1.PodPresetSpec{
					Selector:     metav1.LabelSelector{MatchLabels: map[string]string{"role": "frontend"}},
					Env:          []corev1.EnvVar{{Name: fmt.Sprintf("VAR_%03d", i), Value: "x"}},
					EnvFrom:      []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}},
					Volumes:      []corev1.Volume{{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}}},
					VolumeMounts: []corev1.VolumeMount{{Name: name, MountPath: "/etc/" + name}},
				},
			}
		}
		b.Run(fmt.Sprintf("presets=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				selected, err := Select(pod, presets)
				if err != nil || len(selected) != n {
					b.Fatalf("selected %d, err %v", len(selected), err)
				}
				if r := Apply(pod, selected); len(r.Applied) != n {
					b.Fatalf("applied %d of %d (conflicts %v)", len(r.Applied), n, r.Conflicts)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}

// BenchmarkLargePreset measures the merge of one preset with 5,000, 10,000
// and 20,000 env vars into a pod of two containers: each item is found by
// key, so the time per item stays flat as the preset grows (ns/item).
func BenchmarkLargePreset(b *testing.B) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}}}
	for _, n := range []int{5000, 10000, 20000} {
		p := &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Name: "large", ResourceVersion: "1"}}
		for i := range n {
			p.Spec.Env = append(p.Spec.Env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%05d", i), Value: "x"})
		}
		b.Run(fmt.Sprintf("env=%d", n), func(b *testing.B) {
			for b.Loop() {
				if r := Apply(pod, []*v1alpha1.PodPreset{p}); len(r.Pod.Spec.Containers[1].Env) != n {
					b.Fatalf("%d env vars injected, want %d", len(r.Pod.Spec.Containers[1].Env), n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
		})
	}
}
