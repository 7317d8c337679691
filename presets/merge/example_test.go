package merge_test

import (
	"fmt"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

func Example() {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "website", Labels: map[string]string{"role": "frontend"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "website",
			Image: "nginx",
			Env:   []corev1.EnvVar{{Name: "DB_PORT", Value: "5432"}},
		}}},
	}
	cache := &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: "cache", ResourceVersion: "41"},
		Spec: v1alpha1.PodPresetSpec{
			Selector:     metav1.LabelSelector{MatchLabels: map[string]string{"role": "frontend"}},
			Volumes:      []corev1.Volume{{Name: "cache-volume", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			VolumeMounts: []corev1.VolumeMount{{Name: "cache-volume", MountPath: "/cache"}},
		},
	}
	database := &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: "allow-database", ResourceVersion: "42"},
		Spec: v1alpha1.PodPresetSpec{
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "frontend"}},
			Env:      []corev1.EnvVar{{Name: "DB_PORT", Value: "6379"}},
		},
	}
	backend := &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: "backend", ResourceVersion: "43"},
		Spec: v1alpha1.PodPresetSpec{
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "backend"}},
			Env:      []corev1.EnvVar{{Name: "ROLE", Value: "backend"}},
		},
	}

	// Only the presets selecting the pod, by name.
	presets, err := merge.Select(pod, []*v1alpha1.PodPreset{cache, backend, database})
	if err != nil {
		panic(err)
	}
	for _, p := range presets {
		fmt.Println("selected:", p.Name)
	}

	// allow-database conflicts with the pod's own DB_PORT, so nothing is applied.
	result := merge.Apply(pod, presets)
	fmt.Println("applied:", result.Applied)
	for _, msg := range conflict.Messages(result.Conflicts) {
		fmt.Println(msg)
	}

	// Without the conflicting preset, cache is applied.
	result = merge.Apply(pod, []*v1alpha1.PodPreset{cache})
	fmt.Println("applied:", result.Applied)
	fmt.Println("mounts:", result.Pod.Spec.Containers[0].VolumeMounts[0].MountPath)
	fmt.Println("annotation:", result.Pod.Annotations[merge.AnnotationKey("cache")])

	// Output:
	// selected: allow-database
	// selected: cache
	// applied: []
	// Conflict on pod preset allow-database: duplicate env DB_PORT in container website
	// applied: [cache]
	// mounts: /cache
	// annotation: 41
}
