package compare

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestLostFields: a field of the submitted spec missing from the stored pod
// is data loss; defaults the API server adds and values it rewrites are not
// a lost field.
func TestLostFields(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	submitted := &corev1.Pod{Spec: corev1.PodSpec{
		SchedulingGates: []corev1.PodSchedulingGate{{Name: "example.com/gate"}},
		InitContainers:  []corev1.Container{{Name: "init", Image: "busybox", RestartPolicy: &always}},
		Containers:      []corev1.Container{{Name: "app", Image: "nginx"}},
	}}
	for _, tc := range []struct {
		name string
		edit func(p *corev1.Pod)
		want bool
	}{
		{"unchanged", func(*corev1.Pod) {}, false},
		{"defaults added", func(p *corev1.Pod) {
			p.Spec.DNSPolicy = corev1.DNSClusterFirst
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "1"}}
		}, false},
		{"scheduling gates dropped", func(p *corev1.Pod) { p.Spec.SchedulingGates = nil }, true},
		{"an init container's restartPolicy dropped", func(p *corev1.Pod) { p.Spec.InitContainers[0].RestartPolicy = nil }, true},
		{"a container dropped", func(p *corev1.Pod) { p.Spec.InitContainers = nil }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := submitted.DeepCopy()
			tc.edit(got)
			if lost := LostFields(submitted, got); (len(lost) > 0) != tc.want {
				t.Errorf("LostFields = %v, want some: %v", lost, tc.want)
			}
		})
	}
}
