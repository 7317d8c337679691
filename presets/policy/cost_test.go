package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/policy"
)

// costPreset is preset i of the cost measurements: one env var, one
// emptyDir volume and its mount, as in presetsim bench; it selects
// role=bench when it is one of the matching ones, role=other otherwise.
func costPreset(i int, matching bool) *v1alpha1.PodPreset {
	name := fmt.Sprintf("preset-%04d", i)
	role := "other"
	if matching {
		role = "bench"
	}
	return &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "bench", ResourceVersion: "1"},
		Spec: v1alpha1.PodPresetSpec{
			Selector:     metav1.LabelSelector{MatchLabels: map[string]string{"role": role}},
			Env:          []corev1.EnvVar{{Name: fmt.Sprintf("VAR_%04d", i), Value: "x"}},
			Volumes:      []corev1.Volume{{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			VolumeMounts: []corev1.VolumeMount{{Name: name, MountPath: "/mnt/" + name}},
		},
	}
}

// costPod is a pod as the API server hands it to a mutating policy: one
// container, and the service account's token volume and mount that the
// ServiceAccount plug-in added before.
func costPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "bench", Labels: map[string]string{"role": "bench"}},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{{Name: "kube-api-access-x", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Containers: []corev1.Container{{Name: "c", Image: "i",
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access-x", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}}}},
		},
	}
}

func compileCost(tb testing.TB, n, matching int) *evaluator {
	tb.Helper()
	presets := make([]*v1alpha1.PodPreset, n)
	for i := range presets {
		presets[i] = costPreset(i, i < matching)
	}
	objs, err := policy.Compile("bench", presets, policy.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return newEvaluator(tb, objs.Policy)
}

// BenchmarkPolicy: one pod through the compiled policy's CEL and patch,
// with n presets of which m match: what the policy adds to a pod create,
// less the API server's own work. An API server admits the policy's output
// a second time (reinvocationPolicy IfNeeded, and the policy changed the
// pod): "first" is the pod as submitted, "again" the pod the first made.
func BenchmarkPolicy(b *testing.B) {
	for _, c := range []struct{ n, m int }{{1, 1}, {10, 1}, {10, 10}, {100, 1}, {100, 100}, {1000, 1000}} {
		e := compileCost(b, c.n, c.m)
		ctx := context.Background()
		first, err := e.admit(ctx, costPod())
		if err != nil {
			b.Fatal(err)
		}
		if len(first.Annotations) != c.m {
			b.Fatalf("%d annotations, want %d", len(first.Annotations), c.m)
		}
		for _, in := range []struct {
			name string
			pod  *corev1.Pod
		}{{"first", costPod()}, {"again", first}} {
			b.Run(fmt.Sprintf("%d-presets-%d-matching/%s", c.n, c.m, in.name), func(b *testing.B) {
				for b.Loop() {
					got, err := e.admit(ctx, in.pod)
					if err != nil {
						b.Fatal(err)
					}
					if !equality.Semantic.DeepEqual(got, first) {
						b.Fatal("the admission did not make the pod the first one made")
					}
				}
			})
		}
	}
}

// TestBudget: the API server's CEL limits (100,000 code points per
// expression, 1,000,000 cost units per expression, 10,000,000 per pod) fit
// a namespace of 1,000 one-item presets that all match, on a pod's
// admission and on its second (the API server admits the policy's output
// again), and a pod that holds an item of each of them with another value
// is left alone (R4.2), its items looked up rather than compared pairwise.
func TestBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and evaluates a policy of 1,000 presets; skipped with -short")
	}
	const n = 1000
	presets := make([]*v1alpha1.PodPreset, n)
	for i := range presets {
		presets[i] = &v1alpha1.PodPreset{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%04d", i), Namespace: "bench", ResourceVersion: "7"},
			Spec: v1alpha1.PodPresetSpec{
				Selector: metav1.LabelSelector{MatchLabels: map[string]string{"team": fmt.Sprintf("t%d", i%10), "role": "bench"}},
				Env:      []corev1.EnvVar{{Name: fmt.Sprintf("VAR_%04d", i), Value: "x"}},
			},
		}
	}
	objs, err := policy.Compile("bench", presets, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEvaluator(t, objs.Policy)
	ctx := context.Background()
	pod := costPod()
	pod.Labels["team"] = "t3"
	got, err := e.admit(ctx, pod)
	if err != nil {
		t.Fatalf("first admission: %v", err)
	}
	if len(got.Annotations) != n/10 || len(got.Spec.Containers[0].Env) != n/10 {
		t.Fatalf("%d annotations and %d env vars, want %d of each", len(got.Annotations), len(got.Spec.Containers[0].Env), n/10)
	}
	again, err := e.admit(ctx, got)
	if err != nil {
		t.Fatalf("second admission: %v", err)
	}
	if !equality.Semantic.DeepEqual(got, again) {
		t.Error("the second admission changed the pod")
	}

	all := costPod()
	all.Labels = map[string]string{"role": "bench"}
	for i := range presets {
		presets[i].Spec.Selector.MatchLabels = map[string]string{"role": "bench"}
		all.Spec.Containers[0].Env = append(all.Spec.Containers[0].Env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%04d", i), Value: "y"})
	}
	objs, err = policy.Compile("bench", presets, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e = newEvaluator(t, objs.Policy)
	clash, err := e.admit(ctx, all.DeepCopy())
	if err != nil {
		t.Fatalf("a pod conflicting with all 1,000 presets: %v", err)
	}
	if !equality.Semantic.DeepEqual(clash, all) {
		t.Error("a pod that conflicts with every preset was changed")
	}
	all.Spec.Containers[0].Env = nil
	got, err = e.admit(ctx, all)
	if err != nil {
		t.Fatalf("all 1,000 presets matching: %v", err)
	}
	if _, err := e.admit(ctx, got); err != nil {
		t.Fatalf("all 1,000 presets matching, second admission: %v", err)
	}
}

// TestWarningPolicyFits: the warning policy stays under the size an API
// server stores; past it, it keeps its probe and says why it warns of
// nothing else.
func TestWarningPolicyFits(t *testing.T) {
	tests := []struct {
		name        string
		presets     int
		validations int  // the probe's and one per preset, or the probe's alone
		gate        bool // the match condition a-preset-may-conflict is there
	}{
		{name: "100 presets are each warned of", presets: 100, validations: 101, gate: true},
		{name: "300 presets of one selector", presets: 300, validations: 301, gate: true},
		{name: "1,000 presets would not fit", presets: 1000, validations: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var presets []*v1alpha1.PodPreset
			for i := range tt.presets {
				presets = append(presets, costPreset(i, true))
			}
			objs, err := policy.Compile("bench", presets, policy.Options{})
			if err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(objs.Warning)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > 1<<20 {
				t.Errorf("the warning policy takes %d bytes, more than 1 MiB", len(data))
			}
			if got := len(objs.Warning.Spec.Validations); got != tt.validations {
				t.Errorf("%d validations, want %d", got, tt.validations)
			}
			_, omitted := objs.Warning.Annotations[policy.WarningsOmittedAnnotation]
			if omitted != (tt.validations == 1) {
				t.Errorf("annotation %s present: %v", policy.WarningsOmittedAnnotation, omitted)
			}
			conds := objs.Warning.Spec.MatchConditions
			if gate := slices.ContainsFunc(conds, func(c admissionregistrationv1.MatchCondition) bool { return c.Name == "a-preset-may-conflict" }); gate != tt.gate {
				t.Errorf("the match condition a-preset-may-conflict is there: %v, want %v", gate, tt.gate)
			}
			// As the API server compiles them when it stores the policy.
			if errs := compileConditions(t, conds); len(errs) > 0 {
				t.Errorf("the match conditions do not compile: %v", errs)
			}
		})
	}
}
