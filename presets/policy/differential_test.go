package policy_test

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/presets/policy"
)

var cases = flag.Int("cases", 100, "generated cases TestMatchesModel runs")

// TestMatchesModel: on cases the fuzzer generates (presets whose items
// collide with each other's and with the pod's, shared items, excluded
// and mirror pods), the compiled policy, evaluated by the API server's own
// CEL pieces, makes of each pod what the model of the specification says,
// on the first admission and on the second the API server makes of its
// output. Without an API server: the suite on envtest checks the rest
// (the binding, defaulting, the real dispatcher).
func TestMatchesModel(t *testing.T) {
	n := *cases
	if testing.Short() {
		n = 30
	}
	ctx := context.Background()
	checked := 0
	for i := range n {
		seed := fuzz.CaseSeed(7, i)
		c := fuzz.Generate(seed)
		objs, err := policy.Compile("default", c.Presets, policy.Options{})
		if err != nil {
			continue // an invalid preset (the generator breaks some): not this test's
		}
		pod := defaults.Pod(c.Pod)
		pod.Namespace = "default"
		c.AnnotateCopied(pod, fuzz.Versions(c.Presets))
		want := model.Admit(model.Admission{Presets: c.Presets, Pod: pod}, model.Options{})[0]
		if len(want.InvalidSelectors) > 0 {
			continue
		}
		e := newEvaluator(t, objs.Policy)
		got, err := e.admit(ctx, pod.DeepCopy())
		if err != nil {
			t.Errorf("seed %d: the policy refuses the pod: %v", seed, err)
			continue
		}
		got = defaults.Pod(got) // as the dispatcher defaults the patched pod
		if !equality.Semantic.DeepEqual(got, want.Pod) {
			t.Errorf("seed %d: the policy's pod differs from the model's (-model +policy):\n%s", seed, cmp.Diff(want.Pod, got))
			continue
		}
		again, err := e.admit(ctx, got.DeepCopy())
		if err != nil {
			t.Errorf("seed %d: the policy refuses its own output: %v", seed, err)
			continue
		}
		if again = defaults.Pod(again); !equality.Semantic.DeepEqual(again, got) {
			t.Errorf("seed %d: admitting the policy's output again changes it (R3.8):\n%s", seed, cmp.Diff(got, again))
		}
		checked++
	}
	if checked < n/2 {
		t.Errorf("only %d of %d cases were checked", checked, n)
	}
	t.Logf("%d of %d generated cases checked", checked, n)
}

// TestAppendsBesideThePodsOwnItems: where more items are missing than the
// list holds, the policy adds them as one list and moves the pod's own in
// front (appendTo); the pod is the model's either way, in every kind of
// list, and admitting it again changes nothing.
func TestAppendsBesideThePodsOwnItems(t *testing.T) {
	tests := []struct {
		name    string
		presets int
	}{
		{"fewer missing than held, plus one: an add each", 2},
		{"more missing: one list and moves", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var presets []*v1alpha1.PodPreset
			for i := range tt.presets {
				p := costPreset(i, true)
				p.Namespace = "default"
				p.Spec.EnvFrom = []corev1.EnvFromSource{{Prefix: fmt.Sprintf("P%d_", i), ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}
				presets = append(presets, p)
			}
			pod := costPod()
			pod.Namespace = "default"
			pod.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "i", Env: []corev1.EnvVar{{Name: "OWN", Value: "1"}}}}
			pod.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "OWN", Value: "1"}, {Name: "OWN2", Value: "2"}}
			pod.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{Prefix: "OWN_", SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}}}
			pod = defaults.Pod(pod)
			objs, err := policy.Compile("default", presets, policy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := model.Admit(model.Admission{Presets: presets, Pod: pod}, model.Options{})[0].Pod
			e := newEvaluator(t, objs.Policy)
			got, err := e.admit(context.Background(), pod.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			if got = defaults.Pod(got); !equality.Semantic.DeepEqual(got, want) {
				t.Fatalf("the policy's pod differs from the model's (-model +policy):\n%s", cmp.Diff(want, got))
			}
			again, err := e.admit(context.Background(), got.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			if again = defaults.Pod(again); !equality.Semantic.DeepEqual(again, got) {
				t.Errorf("admitting the output again changes it:\n%s", cmp.Diff(got, again))
			}
		})
	}
}
