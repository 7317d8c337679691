package policy_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/policy"
)

// withAndWithout are evaluators of the policy compiled from presets, with
// its not-applied-yet match condition and without it.
func withAndWithout(t *testing.T, namespace string, presets []*v1alpha1.PodPreset) (with, without *evaluator, ok bool) {
	t.Helper()
	objs, err := policy.Compile(namespace, presets, policy.Options{})
	if err != nil {
		return nil, nil, false
	}
	bare := objs.Policy.DeepCopy()
	bare.Spec.MatchConditions = slices.DeleteFunc(bare.Spec.MatchConditions, func(c admissionregistrationv1.MatchCondition) bool { return c.Name == "not-applied-yet" })
	if len(bare.Spec.MatchConditions) == len(objs.Policy.Spec.MatchConditions) {
		t.Fatalf("the policy has no not-applied-yet condition: %v", objs.Policy.Spec.MatchConditions)
	}
	return newEvaluator(t, objs.Policy), newEvaluator(t, bare), true
}

// skipped says whether the condition alone skips the policy for pod, and
// checks that the policy with it makes of pod what the policy without it
// makes: skipping changes nothing.
func skipped(t *testing.T, what string, with, without *evaluator, pod *corev1.Pod) bool {
	t.Helper()
	ctx := context.Background()
	want, err := without.admit(ctx, pod.DeepCopy())
	if err != nil {
		t.Fatalf("%s: the policy refuses the pod: %v", what, err)
	}
	got, err := with.admit(ctx, pod.DeepCopy())
	if err != nil {
		t.Fatalf("%s: the policy with the condition refuses the pod: %v", what, err)
	}
	if !equality.Semantic.DeepEqual(defaults.Pod(got), defaults.Pod(want)) {
		t.Errorf("%s: the condition changes the pod (-without +with):\n%s", what, cmp.Diff(defaults.Pod(want), defaults.Pod(got)))
	}
	runsWith, err := with.matches(ctx, pod)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	runsWithout, err := without.matches(ctx, pod)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return runsWithout && !runsWith
}

// TestAppliedConditionSkipsWhatIsApplied: the policy's output, admitted
// again as the API server does, is skipped before any patch; a pod that
// still lacks something of a preset that selects it is not.
func TestAppliedConditionSkipsWhatIsApplied(t *testing.T) {
	presets := []*v1alpha1.PodPreset{costPreset(0, true), costPreset(1, true), costPreset(2, false)}
	with, without, _ := withAndWithout(t, "bench", presets)
	output, err := without.admit(context.Background(), defaults.Pod(costPod()))
	if err != nil {
		t.Fatal(err)
	}
	output = defaults.Pod(output)
	if len(output.Annotations) != 2 {
		t.Fatalf("the presets were not applied: %v", output.Annotations)
	}
	tests := []struct {
		name string
		pod  func(p *corev1.Pod)
		skip bool
	}{
		{"a new pod", func(p *corev1.Pod) { *p = *defaults.Pod(costPod()) }, false},
		{"the policy's output", func(*corev1.Pod) {}, true},
		{"the output with an annotation of the user's", func(p *corev1.Pod) { p.Annotations["team"] = "a" }, true},
		{"a container a later webhook added", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "sidecar", Image: "s"})
		}, false},
		{"an env var of a preset removed", func(p *corev1.Pod) { p.Spec.Containers[0].Env = p.Spec.Containers[0].Env[1:] }, false},
		{"a volume of a preset removed", func(p *corev1.Pod) { p.Spec.Volumes = p.Spec.Volumes[:len(p.Spec.Volumes)-1] }, false},
		{"labels that select a third preset", func(p *corev1.Pod) { p.Labels["role"] = "other" }, false},
		{"a preset's annotation at an older version", func(p *corev1.Pod) {
			p.Annotations["podpreset.admission.kubernetes.io/podpreset-preset-0000"] = "0"
		}, false},
		// The two presets share a selector: their annotations are
		// checked together, the first's alone must not do.
		{"the second preset's annotation at an older version", func(p *corev1.Pod) {
			p.Annotations["podpreset.admission.kubernetes.io/podpreset-preset-0001"] = "0"
		}, false},
		{"the second preset's annotation removed", func(p *corev1.Pod) {
			delete(p.Annotations, "podpreset.admission.kubernetes.io/podpreset-preset-0001")
		}, false},
		{"a probe", func(p *corev1.Pod) { p.Annotations[policy.ProbeAnnotation] = "" }, false},
		// Not complete: the keys must end the list, as the policy leaves
		// them. The policy then decides, and changes nothing either.
		{"an env var appended after the presets'", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: "LATE", Value: "1"})
		}, false},
		{"an injected env var of another value (a conflict)", func(p *corev1.Pod) { p.Spec.Containers[0].Env[0].Value = "y" }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := output.DeepCopy()
			tt.pod(pod)
			if got := skipped(t, tt.name, with, without, pod); got != tt.skip {
				t.Errorf("skipped = %v, want %v", got, tt.skip)
			}
		})
	}
}

// TestAppliedConditionOfGeneratedCases: on generated cases, the condition
// never changes what the policy makes of a pod — a new one, the policy's
// output, and the output after a later webhook added a container or
// changed an injected item — and skips most outputs.
func TestAppliedConditionOfGeneratedCases(t *testing.T) {
	n := *cases
	if testing.Short() {
		n = 80
	}
	ctx := context.Background()
	outputs, skips := 0, 0
	for i := range n {
		seed := fuzz.CaseSeed(11, i)
		c := fuzz.Generate(seed)
		with, without, ok := withAndWithout(t, "default", c.Presets)
		if !ok {
			continue // an invalid preset
		}
		pod := defaults.Pod(c.Pod)
		pod.Namespace = "default"
		c.AnnotateCopied(pod, fuzz.Versions(c.Presets))
		skipped(t, "a new pod", with, without, pod)
		output, err := without.admit(ctx, pod.DeepCopy())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		output = defaults.Pod(output)
		if equality.Semantic.DeepEqual(output, pod) {
			continue // nothing applied
		}
		outputs++
		if skipped(t, "the policy's output", with, without, output) {
			skips++
		}
		sidecar := output.DeepCopy()
		sidecar.Spec.Containers = append(sidecar.Spec.Containers, corev1.Container{Name: "late-sidecar", Image: "s"})
		skipped(t, "a container added", with, without, sidecar)
		changed := output.DeepCopy()
		for i := range changed.Spec.Containers {
			if env := changed.Spec.Containers[i].Env; len(env) > 0 {
				env[len(env)-1].Value += "-changed"
				break
			}
		}
		skipped(t, "an item changed", with, without, changed)
	}
	t.Logf("%d cases applied presets; the condition skipped %d of their outputs", outputs, skips)
	if outputs < n/10 || skips < outputs/2 {
		t.Errorf("%d of %d cases applied presets, %d outputs skipped: too few to check the condition", outputs, n, skips)
	}
}
