package compare

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// tokenVolumePrefix names the projected service-account token volume that
// the ServiceAccount admission plug-in adds to every pod.
const tokenVolumePrefix = "kube-api-access-"

// defaultTolerationSeconds is the tolerationSeconds the
// DefaultTolerationSeconds admission plug-in gives its tolerations.
const defaultTolerationSeconds = 300

// Normalize returns a copy of the pod without the items that other built-in
// admission plug-ins add on their own:
//
//   - the service-account token volume added by the ServiceAccount plug-in
//     (a projected volume whose name starts with "kube-api-access-"), and
//     every volumeMount of a container, init container or ephemeral
//     container that refers to such a volume;
//   - the tolerations added by DefaultTolerationSeconds (key
//     node.kubernetes.io/not-ready or node.kubernetes.io/unreachable,
//     operator Exists, effect NoExecute, tolerationSeconds 300).
//
// Nothing else is dropped. A list left empty by the removal is nil. The
// given pod is not modified; Normalize(nil) is nil.
func Normalize(pod *corev1.Pod) *corev1.Pod {
	if pod == nil {
		return nil
	}
	out := pod.DeepCopy()
	spec := &out.Spec

	tokenVolumes := map[string]bool{}
	spec.Volumes = filter(spec.Volumes, func(v corev1.Volume) bool {
		if v.Projected != nil && strings.HasPrefix(v.Name, tokenVolumePrefix) {
			tokenVolumes[v.Name] = true
			return false
		}
		return true
	})
	keepMount := func(m corev1.VolumeMount) bool { return !tokenVolumes[m.Name] }
	for i := range spec.InitContainers {
		spec.InitContainers[i].VolumeMounts = filter(spec.InitContainers[i].VolumeMounts, keepMount)
	}
	for i := range spec.Containers {
		spec.Containers[i].VolumeMounts = filter(spec.Containers[i].VolumeMounts, keepMount)
	}
	for i := range spec.EphemeralContainers {
		spec.EphemeralContainers[i].VolumeMounts = filter(spec.EphemeralContainers[i].VolumeMounts, keepMount)
	}

	spec.Tolerations = filter(spec.Tolerations, func(t corev1.Toleration) bool { return !isDefaultToleration(t) })
	return out
}

// isDefaultToleration reports whether t is one of the two tolerations the
// DefaultTolerationSeconds admission plug-in adds.
func isDefaultToleration(t corev1.Toleration) bool {
	switch t.Key {
	case corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable:
	default:
		return false
	}
	return t.Operator == corev1.TolerationOpExists &&
		t.Value == "" &&
		t.Effect == corev1.TaintEffectNoExecute &&
		t.TolerationSeconds != nil && *t.TolerationSeconds == defaultTolerationSeconds
}

// filter returns the items that keep accepts, or nil when there are none.
func filter[T any](items []T, keep func(T) bool) []T {
	var out []T
	for _, item := range items {
		if keep(item) {
			out = append(out, item)
		}
	}
	return out
}
