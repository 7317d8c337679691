package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/webhook"
)

// laterWait bounds the wait for an API server to call a webhook just
// registered.
const laterWait = 15 * time.Second

// AnnotateAfter makes another mutating admission, after the
// implementation's, set an annotation on every pod created in the
// scenario's default namespace: an API server then reinvokes the
// implementation (reinvocationPolicy IfNeeded), which must change nothing
// more (R3.8). On an API server it is a webhook the harness serves and
// registers under a name that sorts after the implementation's; offline,
// the backend runs it (backend.LaterAdmissions). It is removed when the
// scenario ends.
func (s *Scenario) AnnotateAfter(ctx context.Context, key, value string) error {
	ns, err := s.Namespace(ctx, metav1.NamespaceDefault)
	if err != nil {
		return err
	}
	if l, ok := s.cluster.(backend.LaterAdmissions); ok {
		remove, err := l.AnnotateAfter(ns, key, value)
		if err != nil {
			return err
		}
		s.onCleanup(func(context.Context) error { remove(); return nil })
		return nil
	}
	api := backend.APIOf(s.cluster)
	host, hosts := s.cluster.(backend.WebhookHost)
	if api == nil || !hosts {
		return &backend.UnsupportedError{Backend: s.w.Backend, Reason: "it cannot call a webhook the harness serves, to run an admission after the implementation's"}
	}
	server, err := webhook.Serve(host.WebhookHost(), webhook.AnnotatingHandler(key, value))
	if err != nil {
		return err
	}
	cfg := laterConfiguration(s.w, ns, server)
	if _, err := api.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		_ = server.Stop(context.WithoutCancel(ctx))
		return fmt.Errorf("unable to register the later admission: %w", err)
	}
	s.onCleanup(func(ctx context.Context) error {
		err := api.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, cfg.Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			err = nil
		}
		return errors.Join(err, server.Stop(ctx))
	})
	return s.waitAnnotated(ctx, ns, key, value)
}

// laterConfiguration registers the later admission for CREATE of the pods
// of one namespace, under a name that sorts after the run's registration
// of the implementation (presetsim-<run id>), as webhooks are called in
// the order of their configurations' names.
func laterConfiguration(w *harness.World, ns string, server *webhook.Server) *admissionregistrationv1.MutatingWebhookConfiguration {
	url := server.URL + "/"
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	never := admissionregistrationv1.NeverReinvocationPolicy
	scope := admissionregistrationv1.NamespacedScope
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "presetsim-" + w.RunID + "-later-" + ns, Labels: map[string]string{harness.RunLabel: w.RunID}},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "later.presetsim.dev",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: server.CABundle},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope},
			}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			FailurePolicy:     &fail, SideEffects: &none, ReinvocationPolicy: &never,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// waitAnnotated waits until a dry-run pod of the namespace comes back with
// the annotation: the API server calls the webhook just registered.
func (s *Scenario) waitAnnotated(ctx context.Context, ns, key, value string) error {
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: "later-probe-", Namespace: ns},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: "probe"}}},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return err
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, laterWait, true, func(ctx context.Context) (bool, error) {
		got, err := s.cluster.Create(ctx, backend.Pods, &unstructured.Unstructured{Object: obj}, backend.CreateOptions{DryRun: true})
		if err != nil {
			last = err
			return false, nil
		}
		return got.GetAnnotations()[key] == value, nil
	})
	if err != nil {
		return fmt.Errorf("the API server did not call the later admission within %s (last: %v)", laterWait, last)
	}
	return nil
}
