package webhook

import (
	"slices"

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

// OtherRequestsName names the webhook of WithOtherRequests.
const OtherRequestsName = "other-requests.presetsim.dev"

// OtherRequests are the requests that WithOtherRequests sends an
// implementation besides CREATE of pods, a rule each: what an
// implementation's own registration may send it, and it must leave alone
// (R5.4 of the specification) — UPDATE of pods (R2.1), UPDATE of their
// ephemeralcontainers subresource (R3.2) and CREATE of the workloads whose
// controllers make pods (R2.6).
var OtherRequests = []admissionregistrationv1.RuleWithOperations{
	resourceRule(admissionregistrationv1.Update, "", "pods"),
	resourceRule(admissionregistrationv1.Update, "", "pods/ephemeralcontainers"),
	resourceRule(admissionregistrationv1.Create, "apps", "deployments"),
	resourceRule(admissionregistrationv1.Create, "apps", "replicasets"),
	resourceRule(admissionregistrationv1.Create, "apps", "statefulsets"),
	resourceRule(admissionregistrationv1.Create, "apps", "daemonsets"),
	resourceRule(admissionregistrationv1.Create, "batch", "jobs"),
}

func resourceRule(op admissionregistrationv1.OperationType, group, resource string) admissionregistrationv1.RuleWithOperations {
	scope := admissionregistrationv1.NamespacedScope
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{op},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: []string{resource}, Scope: &scope},
	}
}

// WithOtherRequests returns cfg with one webhook more, OtherRequestsName:
// the first webhook's endpoint and namespaces, sent the requests of rules
// (OtherRequests, or those of them an implementation's own registration
// does not send it: Unsubscribed) with failurePolicy Ignore and no
// reinvocation, so that whatever the implementation does with them, the
// scenario's request goes on. Its endpoint, Observing, decides what the
// API server is told; cfg as it is when rules is empty.
func WithOtherRequests(cfg *admissionregistrationv1.MutatingWebhookConfiguration, rules []admissionregistrationv1.RuleWithOperations) *admissionregistrationv1.MutatingWebhookConfiguration {
	cfg = cfg.DeepCopy()
	if len(cfg.Webhooks) == 0 || len(rules) == 0 {
		return cfg
	}
	other := *cfg.Webhooks[0].DeepCopy()
	other.Name = OtherRequestsName
	other.Rules = slices.Clone(rules)
	ignore := admissionregistrationv1.Ignore
	never := admissionregistrationv1.NeverReinvocationPolicy
	other.FailurePolicy, other.ReinvocationPolicy = &ignore, &never
	other.ObjectSelector = nil
	other.MatchConditions = nil
	cfg.Webhooks = append(cfg.Webhooks, other)
	return cfg
}
