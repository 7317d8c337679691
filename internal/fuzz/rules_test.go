package fuzz

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestLostField: a field of the submitted spec missing from the stored pod
// is data loss; defaults the API server adds and values it rewrites are not
// a lost field.
func TestLostField(t *testing.T) {
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
			if lost := lostField(submitted, got); lost != tc.want {
				t.Errorf("lostField = %v, want %v", lost, tc.want)
			}
		})
	}
}

// TestKindOf: the dry run and the create showing one fault are one kind,
// and so are invalid presets of different names; different rules or
// different faults are not.
func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b Disagreement
		same bool
	}{
		{"dry run and create", Disagreement{Rules: []string{"R3.2"}, Summary: "the dry-run create made another pod than the model: x"},
			Disagreement{Rules: []string{"R3.2"}, Summary: "the create made another pod than the model: y"}, true},
		{"two invalid presets", Disagreement{Rules: []string{"R1.3"}, Summary: "the invalid preset a was stored; the specification refuses it: x"},
			Disagreement{Rules: []string{"R1.3"}, Summary: "the invalid preset b-2 was stored; the specification refuses it: y"}, true},
		{"other rules", Disagreement{Rules: []string{"R3.2"}, Summary: "the create made another pod than the model: x"},
			Disagreement{Rules: []string{"R3.1"}, Summary: "the create made another pod than the model: x"}, false},
		{"stored or refused without a path", Disagreement{Rules: []string{"R1.3"}, Summary: "the invalid preset a was stored; the specification refuses it: x"},
			Disagreement{Rules: []string{"R1.3"}, Summary: "the invalid preset a was refused without naming spec.selector: x"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if same := kindOf(tc.a) == kindOf(tc.b); same != tc.same {
				t.Errorf("kindOf(%q) == kindOf(%q): %v, want %v", tc.a.Summary, tc.b.Summary, same, tc.same)
			}
		})
	}
}
