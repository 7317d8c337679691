package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/internal/suitetest"
)

// TestReinvokedForItsOwnChange pins what docs/policy.md ("Upstream")
// reports to Kubernetes: the pinned kube-apiserver evaluates a
// MutatingAdmissionPolicy with reinvocationPolicy IfNeeded a second time
// when its own patch changed the object and no plug-in changed it after
// (the API's documentation: "if the object being admitted is modified by
// other admission plugins after the initial mutation call"). A patch that
// appends one env var leaves two under IfNeeded, one under Never. When
// this test fails, the API server does what its documentation says, and
// the policy's not-applied-yet condition (applied.go) saves nothing more.
func TestReinvokedForItsOwnChange(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	impl, err := mutants.Implementation("reference")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: impl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	client := suitetest.API(t, w).Client
	for _, tc := range []struct {
		policy admissionregistrationv1.ReinvocationPolicyType
		want   int
	}{
		{admissionregistrationv1.IfNeededReinvocationPolicy, 2},
		{admissionregistrationv1.NeverReinvocationPolicy, 1},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			name := "append-env-" + strings.ToLower(string(tc.policy))
			fail := admissionregistrationv1.Fail
			policy := &admissionregistrationv1.MutatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
					MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
						RuleWithOperations: admissionregistrationv1.RuleWithOperations{
							Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
							Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
						}}}},
					MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "labelled",
						Expression: fmt.Sprintf("has(object.metadata.labels) && object.metadata.labels[?'policy'].orValue('') == '%s'", name)}},
					FailurePolicy:      &fail,
					ReinvocationPolicy: tc.policy,
					Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{
						Expression: `[JSONPatch{op: "add", path: "/spec/containers/0/env/-", value: Object.spec.containers.env{name: "SEEN", value: "1"}}]`}}},
				},
			}
			if _, err := client.AdmissionregistrationV1().MutatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: name}}
			if _, err := client.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = client.AdmissionregistrationV1().MutatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{})
				_ = client.AdmissionregistrationV1().MutatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{})
			})
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"policy": name}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i", Env: []corev1.EnvVar{{Name: "OWN", Value: "0"}}}}}}
			// A policy takes effect once the API server has compiled it: dry
			// runs until the pod is patched.
			var seen int
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				got, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if err != nil {
					t.Fatal(err)
				}
				seen = 0
				for _, e := range got.Spec.Containers[0].Env {
					if e.Name == "SEEN" {
						seen++
					}
				}
				if seen > 0 || time.Now().After(deadline) {
					break
				}
			}
			if seen != tc.want {
				t.Errorf("reinvocationPolicy %s: the policy's env var was appended %d times, want %d", tc.policy, seen, tc.want)
			}
		})
	}
}
