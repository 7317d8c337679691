package conformance

import (
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission"

	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/internal/implementation/external"
	"presetsim.dev/presetsim/internal/implementation/installed"
	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/implementation/policy"
)

// Reference is the reference PodPreset implementation (presets/admission),
// served to the backend's API server as a webhook, or called in-process
// offline.
func Reference() (implementation.Implementation, error) {
	return module.Implementation(module.NewRegistry(), module.Reference)
}

// Module is an admission plug-in of your own on the k8s.io/apiserver
// contract (an admission.MutationInterface, made by factory from the
// plug-in's configuration, as kube-apiserver makes its plug-ins), served
// as the reference is.
func Module(name string, factory admission.Factory) (implementation.Implementation, error) {
	if name == "" || factory == nil {
		return nil, fmt.Errorf("conformance.Module: a module needs a name and a factory")
	}
	r := module.NewRegistry()
	r.Register(name, factory)
	return module.Implementation(r, name)
}

// Policy is the presets compiled into MutatingAdmissionPolicies by a
// controller, with no webhook; it is tested with profiles/policy.yaml
// unless the run names a profile.
func Policy() implementation.Implementation { return policy.New(policy.Options{}) }

// Installed is the implementation already installed on the cluster (its
// CRD and webhook, by its own manifests), for cluster.New and kind.New.
func Installed() implementation.Implementation { return installed.New() }

// Webhook is someone else's admission webhook, registered by its https
// url for the run's namespaces, its certificate verified with caPEM (a PEM
// CA bundle). Options start its process and shape its registration.
func Webhook(url string, caPEM []byte, opts ...WebhookOption) implementation.Implementation {
	o := external.Options{URL: url, CABundle: caPEM}
	for _, opt := range opts {
		opt.applyWebhook(&o)
	}
	return external.New(o)
}

// WebhookOption shapes a Webhook.
type WebhookOption interface {
	applyWebhook(*external.Options)
}

type webhookOption func(*external.Options)

func (f webhookOption) applyWebhook(o *external.Options) { f(o) }

// WithCommand starts the webhook's process once the API server is up, and
// stops it (its process group) at the end: "{kubeconfig}" in an argument is
// replaced by the path of a kubeconfig for it. Its output is kept, bounded,
// for failure messages.
func WithCommand(args ...string) WebhookOption {
	return webhookOption(func(o *external.Options) { o.Command = args })
}

// WithEnv adds NAME=value settings to the command's environment; a value
// may hold "{kubeconfig}" too.
func WithEnv(env ...string) WebhookOption {
	return webhookOption(func(o *external.Options) { o.Env = append(o.Env, env...) })
}

// WithLogFile writes everything the command prints to path.
func WithLogFile(path string) WebhookOption {
	return webhookOption(func(o *external.Options) { o.LogFile = path })
}

// WithFailurePolicy registers the webhook with Fail (the default) or
// Ignore.
func WithFailurePolicy(p admissionregistrationv1.FailurePolicyType) WebhookOption {
	return webhookOption(func(o *external.Options) { o.FailurePolicy = string(p) })
}

// WithTimeout is how long the API server waits for the webhook (1s to
// 30s; 10s by default).
func WithTimeout(d time.Duration) WebhookOption {
	return webhookOption(func(o *external.Options) { o.TimeoutSeconds = int32(d / time.Second) })
}

// WithReviewVersions are the admissionReviewVersions the webhook accepts;
// v1 by default.
func WithReviewVersions(versions ...string) WebhookOption {
	return webhookOption(func(o *external.Options) { o.AdmissionReviewVersions = versions })
}

// WithRegistration registers the webhook as it ships: its own
// MutatingWebhookConfiguration, with only the clientConfig pointed at the
// webhook's URL and the namespaceSelector narrowed to the run's namespaces
// (its rules, selectors, failure policy, timeout and review versions as
// given, which WithFailurePolicy, WithTimeout and WithReviewVersions then
// do not change). The run says what it registers and what it does against
// R5.4 of the specification.
func WithRegistration(cfg *admissionregistrationv1.MutatingWebhookConfiguration) WebhookOption {
	return webhookOption(func(o *external.Options) { o.Registration = cfg.DeepCopy() })
}
