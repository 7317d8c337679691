package webhook

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodConfig describes how the API server calls a pod-mutating webhook.
type PodConfig struct {
	// Name of the MutatingWebhookConfiguration and its webhook (a
	// fully-qualified name, e.g. podpreset.presetsim.dev).
	Name string
	// URL of the webhook endpoint and the CA bundle that verifies it.
	URL      string
	CABundle []byte
	// FailurePolicy: Fail (the default) or Ignore.
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// NamespaceSelector limits the webhook to matching namespaces.
	NamespaceSelector *metav1.LabelSelector
	// TimeoutSeconds, 10 when zero.
	TimeoutSeconds int32
	// AdmissionReviewVersions the webhook accepts, in order of preference;
	// ["v1"] when empty. Some implementations answer only v1beta1.
	AdmissionReviewVersions []string
}

// MutatingWebhookConfiguration returns the registration of a webhook that
// sees CREATE of core pods (no subresources), with admission.k8s.io/v1,
// sideEffects NoneOnDryRun and reinvocationPolicy IfNeeded (R5.1).
func MutatingWebhookConfiguration(c PodConfig) *admissionregistrationv1.MutatingWebhookConfiguration {
	fail := c.FailurePolicy
	if fail == "" {
		fail = admissionregistrationv1.Fail
	}
	timeout := c.TimeoutSeconds
	if timeout == 0 {
		timeout = 10
	}
	side := admissionregistrationv1.SideEffectClassNoneOnDryRun
	reinvoke := admissionregistrationv1.IfNeededReinvocationPolicy
	match := admissionregistrationv1.Equivalent
	scope := admissionregistrationv1.NamespacedScope
	url := c.URL
	versions := c.AdmissionReviewVersions
	if len(versions) == 0 {
		versions = []string{"v1"}
	}
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         c.Name,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: c.CABundle},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope,
				},
			}},
			FailurePolicy:           &fail,
			MatchPolicy:             &match,
			NamespaceSelector:       c.NamespaceSelector,
			SideEffects:             &side,
			TimeoutSeconds:          &timeout,
			AdmissionReviewVersions: versions,
			ReinvocationPolicy:      &reinvoke,
		}},
	}
}
