package scenario

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// controllerLabels are the labels workload controllers put on the pods they
// create, on top of the template's: per-pod or per-revision values that an
// expected pod cannot know.
var controllerLabels = []string{
	"pod-template-hash",                        // ReplicaSets of Deployments
	"controller-revision-hash",                 // StatefulSets, DaemonSets
	"pod-template-generation",                  // DaemonSets
	"statefulset.kubernetes.io/pod-name",       // StatefulSets
	"apps.kubernetes.io/pod-index",             // StatefulSets
	"batch.kubernetes.io/controller-uid",       // Jobs
	"batch.kubernetes.io/job-name",             // Jobs
	"controller-uid",                           // Jobs (legacy label)
	"job-name",                                 // Jobs (legacy label)
	"batch.kubernetes.io/job-completion-index", // indexed Jobs
}

// daemonSetTolerations are the tolerations the DaemonSet controller adds to
// its pods (no tolerationSeconds: they stay through node problems).
var daemonSetTolerations = map[string]corev1.TaintEffect{
	corev1.TaintNodeNotReady:           corev1.TaintEffectNoExecute,
	corev1.TaintNodeUnreachable:        corev1.TaintEffectNoExecute,
	corev1.TaintNodeDiskPressure:       corev1.TaintEffectNoSchedule,
	corev1.TaintNodeMemoryPressure:     corev1.TaintEffectNoSchedule,
	corev1.TaintNodePIDPressure:        corev1.TaintEffectNoSchedule,
	corev1.TaintNodeUnschedulable:      corev1.TaintEffectNoSchedule,
	corev1.TaintNodeNetworkUnavailable: corev1.TaintEffectNoSchedule,
}

// withoutControllerFields returns a copy of a pod made by a workload
// controller without the fields that controller sets per pod, unless the
// expected pod states them: controllerLabels; a StatefulSet pod's hostname
// and subdomain; a DaemonSet pod's node affinity and its tolerations. Pods
// without a controller are returned unchanged.
func withoutControllerFields(want, got *corev1.Pod) *corev1.Pod {
	owner := metav1.GetControllerOf(got)
	if owner == nil {
		return got
	}
	p := got.DeepCopy()
	for _, l := range controllerLabels {
		if _, expected := want.Labels[l]; !expected {
			delete(p.Labels, l)
		}
	}
	switch owner.Kind {
	case "StatefulSet":
		if want.Spec.Hostname == "" {
			p.Spec.Hostname = ""
		}
		if want.Spec.Subdomain == "" {
			p.Spec.Subdomain = ""
		}
	case "DaemonSet":
		if want.Spec.Affinity == nil {
			p.Spec.Affinity = nil
		}
		var kept []corev1.Toleration
		for _, t := range p.Spec.Tolerations {
			effect, added := daemonSetTolerations[t.Key]
			if added && t.Effect == effect && t.Operator == corev1.TolerationOpExists && t.TolerationSeconds == nil && !tolerates(want, t) {
				continue
			}
			kept = append(kept, t)
		}
		p.Spec.Tolerations = kept
	}
	return p
}

func tolerates(pod *corev1.Pod, t corev1.Toleration) bool {
	for _, w := range pod.Spec.Tolerations {
		if w.Key == t.Key && w.Effect == t.Effect {
			return true
		}
	}
	return false
}
