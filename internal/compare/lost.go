package compare

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/internal/compare/valuediff"
	"presetsim.dev/presetsim/presets/merge"
)

// LostItems lists what a submitted pod, defaulted as the API server
// defaults it, had that the pod admitted lacks, against R4.4 (a conflict
// removes nothing): its labels and annotations, its volumes, and each
// container's env vars, envFrom entries and volume mounts.
func LostItems(submitted, got *corev1.Pod) []string {
	var lost []string
	for k, v := range submitted.Labels {
		if got.Labels[k] != v {
			lost = append(lost, "label "+k)
		}
	}
	for k, v := range submitted.Annotations {
		if got.Annotations[k] != v {
			lost = append(lost, "annotation "+k)
		}
	}
	for _, v := range submitted.Spec.Volumes {
		if !slices.ContainsFunc(got.Spec.Volumes, func(g corev1.Volume) bool { return g.Name == v.Name }) {
			lost = append(lost, "volume "+v.Name)
		}
	}
	byName := map[string]corev1.Container{}
	for _, c := range slices.Concat(got.Spec.InitContainers, got.Spec.Containers) {
		byName[c.Name] = c
	}
	for _, c := range slices.Concat(submitted.Spec.InitContainers, submitted.Spec.Containers) {
		g := byName[c.Name]
		for _, e := range c.Env {
			if !slices.ContainsFunc(g.Env, func(x corev1.EnvVar) bool { return equality.Semantic.DeepEqual(x, e) }) {
				lost = append(lost, fmt.Sprintf("env %s of container %s", e.Name, c.Name))
			}
		}
		for _, e := range c.EnvFrom {
			if !slices.ContainsFunc(g.EnvFrom, func(x corev1.EnvFromSource) bool { return merge.EnvFromLabel(&x) == merge.EnvFromLabel(&e) }) {
				lost = append(lost, fmt.Sprintf("envFrom %s of container %s", merge.EnvFromLabel(&e), c.Name))
			}
		}
		for _, m := range c.VolumeMounts {
			if !slices.ContainsFunc(g.VolumeMounts, func(x corev1.VolumeMount) bool { return x.Name == m.Name && x.MountPath == m.MountPath }) {
				lost = append(lost, fmt.Sprintf("volumeMount %s of container %s", m.MountPath, c.Name))
			}
		}
	}
	slices.Sort(lost)
	return lost
}

// LostFields lists the fields of a submitted pod's spec (as submitted)
// that are gone from the pod admitted, by path: the API server only adds
// defaults, so the implementation dropped them, as a webhook built on
// older API types does with fields it cannot decode (spec.schedulingGates,
// an init container's restartPolicy, a mount's recursiveReadOnly).
func LostFields(submitted, got *corev1.Pod) []string {
	want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&submitted.Spec)
	if err != nil {
		return nil
	}
	have, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&got.Spec)
	if err != nil {
		return nil
	}
	var lost []string
	for _, d := range valuediff.Subset("spec", want, have, &corev1.PodSpec{}) {
		if d.Got == valuediff.Absent {
			lost = append(lost, d.Path)
		}
	}
	return lost
}
