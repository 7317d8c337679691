package webhook

import (
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// TestWithOtherRequests: the extra webhook is sent what an implementation
// must leave alone (R5.4) — UPDATE of pods and of their ephemeral
// containers, CREATE of the five workload kinds — at the first webhook's
// endpoint, under Ignore, and the configuration given is left as it was.
func TestWithOtherRequests(t *testing.T) {
	base := MutatingWebhookConfiguration(PodConfig{Name: "podpreset.presetsim.dev", URL: "https://127.0.0.1:9443/mutate", CABundle: []byte("ca")})
	got := WithOtherRequests(base, OtherRequests)
	if len(base.Webhooks) != 1 {
		t.Fatalf("the configuration given was changed: %d webhooks", len(base.Webhooks))
	}
	if len(got.Webhooks) != 2 {
		t.Fatalf("got %d webhooks, want 2", len(got.Webhooks))
	}
	other := got.Webhooks[1]
	if other.Name != OtherRequestsName || *other.FailurePolicy != admissionregistrationv1.Ignore || *other.ReinvocationPolicy != admissionregistrationv1.NeverReinvocationPolicy {
		t.Errorf("webhook %s, failurePolicy %s, reinvocation %s; want %s, Ignore, Never", other.Name, *other.FailurePolicy, *other.ReinvocationPolicy, OtherRequestsName)
	}
	if *other.ClientConfig.URL != *base.Webhooks[0].ClientConfig.URL || string(other.ClientConfig.CABundle) != "ca" {
		t.Errorf("clientConfig %+v, want the first webhook's", other.ClientConfig)
	}
	sent := map[string]admissionregistrationv1.OperationType{}
	for _, r := range other.Rules {
		for _, res := range r.Resources {
			sent[r.APIGroups[0]+"/"+res] = r.Operations[0]
		}
	}
	for _, tc := range []struct {
		resource string
		op       admissionregistrationv1.OperationType
	}{
		{"/pods", admissionregistrationv1.Update},
		{"/pods/ephemeralcontainers", admissionregistrationv1.Update},
		{"apps/deployments", admissionregistrationv1.Create},
		{"apps/replicasets", admissionregistrationv1.Create},
		{"apps/statefulsets", admissionregistrationv1.Create},
		{"apps/daemonsets", admissionregistrationv1.Create},
		{"batch/jobs", admissionregistrationv1.Create},
	} {
		if sent[tc.resource] != tc.op {
			t.Errorf("%s: sent %q, want %s", tc.resource, sent[tc.resource], tc.op)
		}
	}
	if slices.ContainsFunc(other.Rules, func(r admissionregistrationv1.RuleWithOperations) bool {
		return slices.Contains(r.Resources, "pods") && slices.Contains(r.Operations, admissionregistrationv1.Create)
	}) {
		t.Error("the extra webhook is sent CREATE of pods, which is the implementation's own registration's")
	}
}
