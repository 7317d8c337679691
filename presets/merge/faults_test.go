package merge

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// TestFaultVariants: each fault-only variant (what the oracle's hypotheses
// merge with) breaks its rule the way it says, and only that way.
func TestFaultVariants(t *testing.T) {
	cm := func(name string) *corev1.ConfigMapEnvSource {
		return &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}
	}
	emptyDir := corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	for _, tc := range []struct {
		name          string
		container     corev1.Container
		spec          v1alpha1.PodPresetSpec
		v             Variant
		wantConflicts int
		want          corev1.Container
	}{
		{"env names folded: same value is the same item",
			corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "db_host", Value: "x"}}},
			v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{{Name: "DB_HOST", Value: "x"}}}, Variant{EnvNamesFolded: true}, 0,
			corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "db_host", Value: "x"}}}},
		{"env names folded: another value conflicts",
			corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "db_host", Value: "x"}}},
			v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{{Name: "DB_HOST", Value: "y"}}}, Variant{EnvNamesFolded: true}, 1,
			corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "db_host", Value: "x"}}}},
		{"env names as the specification keys them",
			corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "db_host", Value: "x"}}},
			v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{{Name: "DB_HOST", Value: "y"}}}, Variant{}, 0,
			corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "db_host", Value: "x"}, {Name: "DB_HOST", Value: "y"}}}},
		{"envFrom prefix ignored: another prefix conflicts",
			corev1.Container{Name: "c", EnvFrom: []corev1.EnvFromSource{{Prefix: "A_", ConfigMapRef: cm("db")}}},
			v1alpha1.PodPresetSpec{EnvFrom: []corev1.EnvFromSource{{Prefix: "B_", ConfigMapRef: cm("db")}}}, Variant{EnvFromPrefixIgnored: true}, 1,
			corev1.Container{Name: "c", EnvFrom: []corev1.EnvFromSource{{Prefix: "A_", ConfigMapRef: cm("db")}}}},
		{"mount paths unkeyed: two mounts at one path",
			corev1.Container{Name: "c", VolumeMounts: []corev1.VolumeMount{{Name: "own", MountPath: "/data"}}},
			v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{{Name: "cache", VolumeSource: emptyDir}}, VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/data"}}},
			Variant{MountPathsUnkeyed: true}, 0,
			corev1.Container{Name: "c", VolumeMounts: []corev1.VolumeMount{{Name: "own", MountPath: "/data"}, {Name: "cache", MountPath: "/data"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := newPod(withContainers(tc.container))
			r := ApplyVariant(pod, []*v1alpha1.PodPreset{newPreset("p", "1", tc.spec)}, tc.v)
			if len(r.Conflicts) != tc.wantConflicts {
				t.Fatalf("%d conflicts %v, want %d", len(r.Conflicts), r.Conflicts, tc.wantConflicts)
			}
			got := r.Pod.Spec.Containers[0]
			if !equality.Semantic.DeepEqual(got.Env, tc.want.Env) || !equality.Semantic.DeepEqual(got.EnvFrom, tc.want.EnvFrom) ||
				!equality.Semantic.DeepEqual(got.VolumeMounts, tc.want.VolumeMounts) {
				t.Errorf("container %+v, want %+v", got, tc.want)
			}
		})
	}
	t.Run("overwrite conflicts", func(t *testing.T) {
		pod := newPod(withContainers(corev1.Container{Name: "c", Env: []corev1.EnvVar{{Name: "A", Value: "own"}, {Name: "B", Value: "b"}}}))
		p := newPreset("p", "1", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{{Name: "A", Value: "preset"}}})
		got, conflicts := Merge(pod, []*v1alpha1.PodPreset{p}, Variant{OverwriteConflicts: true})
		want := []corev1.EnvVar{{Name: "A", Value: "preset"}, {Name: "B", Value: "b"}}
		if len(conflicts) != 1 || !equality.Semantic.DeepEqual(got.Spec.Containers[0].Env, want) {
			t.Errorf("env %v, %d conflicts; want %v and 1", got.Spec.Containers[0].Env, len(conflicts), want)
		}
		if kept, conflicts := Merge(pod, []*v1alpha1.PodPreset{p}, Variant{}); len(conflicts) != 1 || kept.Spec.Containers[0].Env[0].Value != "own" {
			t.Error("without the variant the pod's own item must stay and the conflict be found")
		}
	})
}
