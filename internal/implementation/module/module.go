package module

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/webhook"
	"presetsim.dev/presetsim/outcome"
)

// Module is an in-process admission module under test: served to an API
// server as a webhook on the host address it reaches
// (backend.WebhookHost), or handed to a cluster that calls it in-process
// (backend.InProcessAdmission).
type Module struct {
	name     string
	registry *Registry
	wait     time.Duration
	cancel   context.CancelFunc
	running  *Running
	server   *webhook.Server
	// failures are the requests its webhook answered with an error.
	failures webhook.Failures
	// findings are what it did with the requests other than a pod's
	// creation, which the harness's registration sends it only to see
	// (backend.UnsubscribedReport).
	findings webhook.Findings
}

// FailedRequests are the requests in the namespace the module's webhook
// answered with an error, not an AdmissionReview (implementation.Answers);
// offline, the backend notes them itself.
func (m *Module) FailedRequests(namespace string) []string { return m.failures.In(namespace) }

// FindingsIn are what the module's webhook did with the requests of the
// namespace other than a pod's creation (backend.Findings); offline, the
// backend notes them itself.
func (m *Module) FindingsIn(namespace string) []outcome.Finding {
	return m.findings.FindingsIn(namespace)
}

// Implementation returns the in-process module name of the registry (the
// reference module when name is empty) as the implementation under test.
func Implementation(r *Registry, name string) (*Module, error) {
	if name == "" {
		name = Reference
	}
	if err := r.check(name); err != nil {
		return nil, err
	}
	return &Module{name: name, registry: r}, nil
}

// Name is the module's name.
func (m *Module) Name() string { return m.name }

// CRD is ReferenceCRD: the module reads the canonical PodPreset.
func (m *Module) CRD() implementation.CRDSource { return implementation.ReferenceCRD }

// Install installs the reference CRD on an API server, starts the module
// and serves it as a webhook, or hands it to an in-process cluster.
func (m *Module) Install(ctx context.Context, t implementation.Target) error {
	m.wait = t.Wait
	host, serves := t.Cluster.(backend.WebhookHost)
	inProcess, calls := t.Cluster.(backend.InProcessAdmission)
	if !serves && !calls {
		return fmt.Errorf("the %s backend can neither call a webhook on this host nor an in-process module: test the implementation installed there", t.Backend)
	}
	if api := backend.APIOf(t.Cluster); api != nil {
		fmt.Fprintf(t.Progress, "installing the %s CRD ...\n", t.Profile.PresetGVK().Kind)
		if err := implementation.InstallCRD(ctx, api, t.Profile); err != nil {
			return err
		}
	}
	var moduleCtx context.Context
	moduleCtx, m.cancel = context.WithCancel(context.Background())
	clients := t.Cluster.Clients()
	var err error
	if m.running, err = m.registry.Start(moduleCtx, m.name, Deps{Client: clients.Typed, Dynamic: clients.Dynamic}); err != nil {
		return fmt.Errorf("unable to start admission module %q: %w", m.name, err)
	}
	if calls {
		fmt.Fprintf(t.Progress, "admission module %q runs in-process\n", m.name)
		return inProcess.Admit(m.running.Plugin, backend.AdmitOptions{Namespaces: t.Namespaces, Unsubscribed: t.Unsubscribed})
	}
	fmt.Fprintf(t.Progress, "serving admission module %q as a webhook on %s ...\n", m.name, host.WebhookHost())
	mux := http.NewServeMux()
	mux.Handle("/mutate-pods", webhook.NewHandler(m.running.Plugin, manifest.Scheme()).NoteFailures(&m.failures))
	// The other requests are the module's to answer, and the harness's to
	// keep from the API server unless the run judges them.
	mux.Handle("/other-requests", webhook.Observing(webhook.NewHandler(m.running.Plugin, manifest.Scheme()), t.Unsubscribed, &m.findings))
	if m.server, err = webhook.Serve(host.WebhookHost(), mux); err != nil {
		return err
	}
	cfg := webhook.WithOtherRequests(webhook.MutatingWebhookConfiguration(webhook.PodConfig{
		Name: implementation.WebhookName, NamespaceSelector: t.Namespaces, URL: m.server.URL + "/mutate-pods", CABundle: m.server.CABundle}), webhook.OtherRequests)
	otherURL := m.server.URL + "/other-requests"
	cfg.Webhooks[1].ClientConfig.URL = &otherURL
	return implementation.RegisterWebhook(ctx, t, cfg)
}

// WaitForPreset waits until the module's cache holds the preset, when the
// module can tell.
func (m *Module) WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error {
	if m.running == nil || m.running.WaitForPreset == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, m.wait)
	defer cancel()
	return m.running.WaitForPreset(ctx, namespace, name, resourceVersion)
}

// Stop stops the module and its webhook server.
func (m *Module) Stop() error {
	if m.running != nil && m.running.Stop != nil {
		m.running.Stop()
	}
	if m.cancel != nil {
		m.cancel()
	}
	var errs []error
	if m.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, m.server.Stop(ctx))
		cancel()
	}
	return errors.Join(errs...)
}

// The abilities the harness asks of an in-process module.
var (
	_ backend.Findings       = (*Module)(nil)
	_ implementation.Answers = (*Module)(nil)
)
