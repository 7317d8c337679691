package implementation

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness/backend"
)

// WebhookName names the implementation's webhook in its registration, and
// in the API server's messages about it.
const WebhookName = "podpreset.presetsim.dev"

// RegisterWebhook registers a webhook configuration (its webhooks made for
// the target's namespaces, Target.Namespaces, and named WebhookName) under
// the run's name (presetsim-<run id>), labelled with the run's id so that a
// cluster that outlives the run can remove it (see package apiserver's
// DeleteRunObjects).
func RegisterWebhook(ctx context.Context, t Target, cfg *admissionregistrationv1.MutatingWebhookConfiguration) error {
	api := backend.APIOf(t.Cluster)
	if api == nil {
		return fmt.Errorf("the %s backend has no API server to register a webhook with", t.Backend)
	}
	cfg = cfg.DeepCopy()
	cfg.Name = "presetsim-" + t.RunID
	cfg.Labels = map[string]string{backend.RunLabel: t.RunID}
	if _, err := api.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("unable to register the webhook: %w", err)
	}
	return nil
}
