package policy_test

import (
	"context"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/policy"
)

// TestNotYetApplied: the match condition not-yet-applied lets the API
// server skip an IfNeeded policy's second evaluation exactly when its
// patch would be empty. For each pod: whether it holds, and that the
// policy admits the pod as the same policy without the condition does.
func TestNotYetApplied(t *testing.T) {
	presets := []*v1alpha1.PodPreset{costPreset(0, true), costPreset(1, true), costPreset(2, false)}
	objs, err := policy.Compile("bench", presets, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gated := objs.Policy
	if !slices.ContainsFunc(gated.Spec.MatchConditions, func(c admissionregistrationv1.MatchCondition) bool { return c.Name == "not-yet-applied" }) {
		t.Fatal("the IfNeeded policy has no match condition not-yet-applied")
	}
	ungated := gated.DeepCopy()
	ungated.Spec.MatchConditions = slices.DeleteFunc(ungated.Spec.MatchConditions, func(c admissionregistrationv1.MatchCondition) bool { return c.Name == "not-yet-applied" })
	with, without := newEvaluator(t, gated), newEvaluator(t, ungated)
	ctx := context.Background()

	first, err := with.admit(ctx, costPod())
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Annotations) != 2 {
		t.Fatalf("the first admission left %d annotations, want 2", len(first.Annotations))
	}
	sidecar := first.DeepCopy() // as a later webhook (a sidecar injector) leaves it
	sidecar.Spec.Containers = append(sidecar.Spec.Containers, corev1.Container{Name: "sidecar", Image: "proxy"})
	older := first.DeepCopy()
	older.Annotations[merge.AnnotationKey("preset-0000")] = "0"
	probe := first.DeepCopy()
	probe.Annotations[policy.ProbeAnnotation] = ""
	unselected := costPod()
	unselected.Labels["role"] = "nobody"
	ownItem := costPod() // holds preset 1's env var itself (R3.4), before where the policy appends preset 0's
	ownItem.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "VAR_0001", Value: "x"}}
	ownFirst, err := with.admit(ctx, ownItem)
	if err != nil {
		t.Fatal(err)
	}
	lessItem := first.DeepCopy() // a later webhook took a volume away
	lessItem.Spec.Volumes = lessItem.Spec.Volumes[:len(lessItem.Spec.Volumes)-1]

	for _, tc := range []struct {
		name  string
		pod   *corev1.Pod
		holds bool
	}{
		{"a pod as submitted", costPod(), true},
		{"the pod the policy made: nothing left to do", first, false},
		{"a container added after the policy", sidecar, true},
		{"a preset's annotation at an older version", older, true},
		{"a probe pod", probe, true},
		{"a pod no preset selects", unselected, false},
		{"an item of the pod's own, admitted again", ownFirst, true},
		{"a volume taken away after the policy", lessItem, true},
		{"a pod with no annotations and no labels", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bare", Namespace: "bench"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			holds, err := with.matches(with.compiler.CreateContext(ctx), tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			if holds != tc.holds {
				t.Errorf("the policy's match conditions hold: %v, want %v", holds, tc.holds)
			}
			got, err := with.admit(ctx, tc.pod.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			want, err := without.admit(ctx, tc.pod.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(got, want) {
				t.Errorf("admitted with the condition:\n%+v\nwithout it:\n%+v", got.Spec, want.Spec)
			}
		})
	}
}
