package external

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/tailbuf"
	"presetsim.dev/presetsim/internal/webhook"
	"presetsim.dev/presetsim/outcome"
)

// Options describe someone else's admission webhook, registered by URL.
type Options struct {
	// URL of the webhook endpoint (https).
	URL string
	// CABundle verifies the webhook's certificate (PEM).
	CABundle []byte
	// AdmissionReviewVersions the webhook accepts; ["v1"] when empty.
	AdmissionReviewVersions []string
	// TimeoutSeconds the API server waits for it; 10 when zero.
	TimeoutSeconds int32
	// FailurePolicy is Fail (the default) or Ignore.
	FailurePolicy string
	// Command, when set, starts the webhook once the API server is up:
	// "{kubeconfig}" in an argument or an Env value is replaced by the path
	// of a kubeconfig for it (KUBECONFIG={kubeconfig} serves webhooks that
	// take no flag for it). The process (group) is stopped with the World.
	Command []string
	// Env are NAME=value settings added to the command's environment
	// (which is otherwise the harness's own).
	Env []string
	// LogFile, when set, receives everything the command writes to stdout
	// and stderr (presetsim run puts it in the report folder). Its last
	// lines are kept in memory either way, for failure messages.
	LogFile string
	// SyncTimeout bounds how long, after creating a preset, the harness
	// waits for the webhook to apply it to a probe pod; 2s when zero.
	SyncTimeout time.Duration
	// RefusedGrace is how long the webhook may refuse connections at
	// start-up before the run fails with a setup error; 10s when zero (a
	// process may still be starting), OutsideGrace with KubeconfigOut and
	// no Command.
	RefusedGrace time.Duration
	// Registration, when set, is the webhook's own
	// MutatingWebhookConfiguration as it ships (ReadRegistration): it is
	// registered as is, with only its clientConfig pointed at URL and its
	// namespaceSelector narrowed to the run's namespaces (asDeployed), and
	// FailurePolicy, TimeoutSeconds and AdmissionReviewVersions are not
	// used. What it registers is said, and what it does against R5.4
	// (RegistrationFindings).
	Registration *admissionregistrationv1.MutatingWebhookConfiguration
	// KubeconfigOut, when set, is where the kubeconfig for a webhook
	// started outside the run is written once the API server is up: a
	// webhook on the host of the container the run is in, or in another
	// container. It is written whole (a reader never sees part of it),
	// readable by its owner only, and removed when the run stops.
	KubeconfigOut string
}

// OutsideGrace is how long a webhook started outside the run, from the
// kubeconfig written to Options.KubeconfigOut, may take to answer: a
// person or a script starts it, not the harness.
const OutsideGrace = 60 * time.Second

// Placeholders replaced in Options.Command and Options.Env: the path of a
// kubeconfig for the webhook and, when Options.CABundle is empty, of the
// serving certificate and key the harness issued for the URL's host and of
// the CA that signed it.
const (
	KubeconfigPlaceholder = "{kubeconfig}"
	CertPlaceholder       = "{cert}"
	KeyPlaceholder        = "{key}"
	CAPlaceholder         = "{ca}"
)

// Webhook is an external webhook under test, with its process when the
// harness starts one.
type Webhook struct {
	spec    Options
	cluster backend.Objects
	profile *profile.Profile
	dir     string
	cmd     *exec.Cmd
	output  *tailbuf.Buffer
	log     *cappedLog
	exited  chan struct{}
	// certs is the serving certificate the harness issued (Options.CABundle
	// was empty), nil otherwise.
	certs *webhook.Certificates
	// wroteKubeconfig: Options.KubeconfigOut is this run's, to remove.
	wroteKubeconfig bool
	// relay stands between the API server and a webhook on this host's
	// loopback, and notes the requests that got no valid answer (R5.3);
	// nil for a webhook elsewhere.
	relay *relay
	// findings are what its own registration does against R5.4.
	findings []string
}

// portFree fails when something already answers at the webhook's address
// before its command started: the run would test that, not the webhook.
func portFree(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !loopback(raw) {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	addr := net.JoinHostPort(u.Hostname(), port)
	conn, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return nil
	}
	_ = conn.Close()
	return fmt.Errorf("something already listens on %s before the webhook's command started: the run would test it, not the webhook (stop it, or give the webhook another port)", addr)
}

// FailedRequests are the admission requests in the namespace that got no
// valid answer from the webhook (implementation.Answers): none is known of
// a webhook that is not on this host's loopback, which the relay cannot
// stand in front of.
func (e *Webhook) FailedRequests(namespace string) []string {
	if e.relay == nil {
		return nil
	}
	return e.relay.Failed(namespace)
}

// PodCreateSent is how many times the API server sent the webhook the
// CREATE of the pod namespace/name (implementation.Deliveries): not known
// of a webhook the relay cannot stand in front of.
func (e *Webhook) PodCreateSent(namespace, name string) (times int, known bool) {
	if e.relay == nil {
		return 0, false
	}
	return e.relay.PodCreateSent(namespace, name)
}

// PodCreatesSent is how many pod creations of the namespace the API
// server sent the webhook (implementation.Deliveries), named or not; known
// is false of a webhook the relay cannot stand in front of.
func (e *Webhook) PodCreatesSent(namespace string) (n int, known bool) {
	if e.relay == nil {
		return 0, false
	}
	return e.relay.PodCreatesSent(namespace), true
}

// FindingsIn are what the webhook did with the requests of the namespace
// its registration does not send it (backend.Findings): none is known of
// a webhook the relay cannot stand in front of, which is not sent them.
func (e *Webhook) FindingsIn(namespace string) []outcome.Finding {
	if e.relay == nil {
		return nil
	}
	return e.relay.FindingsIn(namespace)
}

// RegistrationFindings are what the webhook's own registration does
// against R5.4 (implementation.Deliveries), none under the harness's.
func (e *Webhook) RegistrationFindings() []string { return slices.Clone(e.findings) }

// otherRequests are the requests the harness sends the webhook besides
// what its registration (reg; the harness's, CREATE of pods, when nil)
// sends it: those its registration does not send (webhook.Unsubscribed),
// to see what it would do with them. None where the harness cannot stand
// in front of the webhook to keep its answers from the API server, unless
// the run judges them (backend.UnsubscribedFail): the answers would change
// what the run's requests become, as they never would in a cluster.
func (e *Webhook) otherRequests(t implementation.Target, reg *admissionregistrationv1.MutatingWebhookConfiguration) []admissionregistrationv1.RuleWithOperations {
	other := webhook.OtherRequests
	if reg != nil {
		other = webhook.Unsubscribed(reg)
	}
	if len(other) > 0 && e.relay == nil && !t.Unsubscribed.Fail() {
		fmt.Fprintf(t.Progress, "the requests its registration does not send it are not sent: the harness cannot stand in front of a webhook at %s to keep its answers from the API server (--unsubscribed fail sends them, and judges them)\n", e.spec.URL)
		return nil
	}
	return other
}

// New returns the external webhook opts describe.
func New(opts Options) *Webhook { return &Webhook{spec: opts} }

// Name is the webhook's URL.
func (e *Webhook) Name() string { return e.spec.URL }

// CRD is HarnessCRD: the harness installs the profile's CRD (or the
// reference one) for it.
func (e *Webhook) CRD() implementation.CRDSource { return implementation.HarnessCRD }

// StartsProcesses reports whether the harness starts the webhook's process.
func (e *Webhook) StartsProcesses() bool { return len(e.spec.Command) > 0 }

// Preflight refuses a backend whose API server cannot call a webhook on
// this host: an external webhook is called by an API server, and the one
// of the envtest backend runs here.
func (e *Webhook) Preflight(b backend.Backend) error {
	if l, ok := b.(backend.LoopbackWebhooks); ok && l.CallsLoopbackWebhooks() {
		return nil
	}
	return fmt.Errorf("an external webhook is called by an API server on this host, and the %s backend has none: use the envtest backend", b.Name())
}

// Install installs the preset CRD, starts the webhook's command, if any,
// and registers the webhook.
func (e *Webhook) Install(ctx context.Context, t implementation.Target) error {
	if !strings.HasPrefix(e.spec.URL, "https://") {
		return fmt.Errorf("external module: the webhook URL must be https://, got %q", e.spec.URL)
	}
	if len(e.spec.CABundle) == 0 && len(e.spec.Command) == 0 {
		return errors.New("external module: a CA bundle is required (or a command, which the harness then gives a serving certificate: " +
			CertPlaceholder + ", " + KeyPlaceholder + ", " + CAPlaceholder + ")")
	}
	if len(e.spec.CABundle) == 0 {
		// The harness issues the serving certificate, as controller-runtime's
		// envtest does for the webhooks it serves.
		u, err := url.Parse(e.spec.URL)
		if err != nil {
			return fmt.Errorf("external module: the webhook URL: %w", err)
		}
		if e.certs, err = webhook.NewCertificates(u.Hostname()); err != nil {
			return fmt.Errorf("external module: issuing a serving certificate for %s: %w", u.Hostname(), err)
		}
		e.spec.CABundle = e.certs.CABundle
	}
	api := backend.APIOf(t.Cluster)
	if api == nil {
		return fmt.Errorf("an external webhook is called by an API server, and the %s backend has none", t.Backend)
	}
	fmt.Fprintf(t.Progress, "installing the %s CRD ...\n", t.Profile.PresetGVK().Kind)
	if err := implementation.InstallCRD(ctx, api, t.Profile); err != nil {
		return err
	}
	e.cluster, e.profile = t.Cluster, t.Profile
	fmt.Fprintf(t.Progress, "registering the external webhook %s ...\n", e.spec.URL)
	if len(e.spec.Command) > 0 {
		if err := e.start(api.KubeConfig, t.KeepDir); err != nil {
			return err
		}
	}
	if e.spec.KubeconfigOut != "" {
		if err := writeWhole(e.spec.KubeconfigOut, api.KubeConfig); err != nil {
			return fmt.Errorf("unable to write the webhook's kubeconfig: %w", err)
		}
		e.wroteKubeconfig = true
		fmt.Fprintf(t.Progress, "the webhook's kubeconfig is %s: start the webhook with it (the run waits up to %s) ...\n", e.spec.KubeconfigOut, e.RefusedGrace())
	}
	endpoint, caBundle := e.spec.URL, e.spec.CABundle
	if loopback(e.spec.URL) {
		r, err := startRelay(e.spec.URL, e.spec.CABundle, t.Unsubscribed)
		if err != nil {
			return err
		}
		e.relay = r
		endpoint, caBundle = r.URL(), r.CABundle()
	}
	reg := e.spec.Registration
	if reg == nil && t.Profile != nil {
		// The profile's, unless the run was given one.
		path, data, err := t.Profile.RegistrationFile()
		if err != nil {
			return err
		}
		if data != nil {
			if reg, err = ParseRegistration(path, data); err != nil {
				return fmt.Errorf("profile %s: spec.registration: %w", t.Profile.Metadata.Name, err)
			}
		}
	}
	cfg := webhook.MutatingWebhookConfiguration(webhook.PodConfig{
		Name:                    implementation.WebhookName,
		NamespaceSelector:       t.Namespaces,
		URL:                     endpoint,
		CABundle:                caBundle,
		FailurePolicy:           admissionregistrationv1.FailurePolicyType(e.spec.FailurePolicy),
		TimeoutSeconds:          e.spec.TimeoutSeconds,
		AdmissionReviewVersions: e.spec.AdmissionReviewVersions,
	})
	// The harness's webhook for the requests other than a pod's creation
	// speaks the review versions the implementation's pod webhook speaks
	// (one that speaks only v1beta1 would fail a v1 review).
	other := cfg.Webhooks[0]
	if reg != nil {
		deployed, err := asDeployed(reg, endpoint, caBundle, t.Namespaces)
		if err != nil {
			return fmt.Errorf("external module: the webhook's registration: %w", err)
		}
		fmt.Fprintf(t.Progress, "registering the webhook as it ships (%s):\n", reg.Name)
		for _, line := range Describe(deployed) {
			fmt.Fprintf(t.Progress, "  %s\n", line)
		}
		e.findings = RegistrationFindings(reg, t.Profile)
		for _, finding := range e.findings {
			fmt.Fprintf(t.Progress, "  %s\n", finding)
		}
		for _, declared := range DeclaredNarrowing(reg, t.Profile) {
			fmt.Fprintf(t.Progress, "  declared: %s\n", declared)
		}
		other.AdmissionReviewVersions = slices.Clone(reg.Webhooks[0].AdmissionReviewVersions)
		for _, w := range reg.Webhooks {
			if slices.ContainsFunc(w.Rules, podCreate) {
				other.AdmissionReviewVersions = slices.Clone(w.AdmissionReviewVersions)
				break
			}
		}
		cfg = deployed
	}
	if rules := e.otherRequests(t, reg); len(rules) > 0 {
		with := webhook.WithOtherRequests(&admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{other}}, rules)
		hook := with.Webhooks[1]
		if e.relay != nil {
			otherURL := e.relay.OtherURL()
			hook.ClientConfig.URL = &otherURL
		}
		cfg.Webhooks = append(cfg.Webhooks, hook)
	}
	return implementation.RegisterWebhook(ctx, t, cfg)
}

// WaitForPreset probes the webhook with dry-run pods
// (implementation.ProbePreset) for at most Options.SyncTimeout.
func (e *Webhook) WaitForPreset(ctx context.Context, namespace, name, _ string) error {
	var d implementation.Deliveries
	if e.relay != nil {
		d = e
	}
	return implementation.ProbePresetModelled(ctx, e.cluster, e.profile, namespace, name, e.spec.SyncTimeout, d)
}

func (e *Webhook) start(kubeconfig []byte, keepDir func(string) error) error {
	dir, err := os.MkdirTemp("", "presetsim-external-")
	if err != nil {
		return err
	}
	e.dir = dir
	if err := backend.KeepDir(keepDir, dir); err != nil {
		return err
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		return err
	}
	files := map[string][]byte{KubeconfigPlaceholder: nil}
	if e.certs != nil {
		cert, key, err := e.certs.ServingPEM()
		if err != nil {
			return err
		}
		files = map[string][]byte{CertPlaceholder: cert, KeyPlaceholder: key, CAPlaceholder: e.certs.CABundle}
	}
	pairs := []string{KubeconfigPlaceholder, path}
	for placeholder, data := range files {
		if data == nil {
			continue
		}
		file := filepath.Join(dir, strings.Trim(placeholder, "{}")+".pem")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			return err
		}
		pairs = append(pairs, placeholder, file)
	}
	expand := strings.NewReplacer(pairs...).Replace
	args := make([]string, len(e.spec.Command))
	for i, a := range e.spec.Command {
		args[i] = expand(a)
	}
	// What the process writes is bounded in memory (its last lines) and
	// on disk (the log file is cut at maxLogBytes), however much it prints.
	e.output = &tailbuf.Buffer{}
	var out io.Writer = e.output
	if e.spec.LogFile != "" {
		f, err := os.Create(e.spec.LogFile)
		if err != nil {
			return fmt.Errorf("the external module's log: %w", err)
		}
		e.log = &cappedLog{w: f, limit: maxLogBytes}
		out = io.MultiWriter(e.output, e.log)
	}
	if err := portFree(e.spec.URL); err != nil {
		return err
	}
	e.cmd = exec.Command(args[0], args[1:]...)
	if len(e.spec.Env) > 0 {
		e.cmd.Env = os.Environ()
		for _, kv := range e.spec.Env {
			e.cmd.Env = append(e.cmd.Env, expand(kv))
		}
	}
	e.cmd.Stdout, e.cmd.Stderr = out, out
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := e.cmd.Start(); err != nil {
		e.closeLog()
		return fmt.Errorf("unable to start the external module %q: %w", args[0], err)
	}
	e.exited = make(chan struct{})
	go func() {
		_ = e.cmd.Wait()
		e.closeLog()
		close(e.exited)
	}()
	return nil
}

func (e *Webhook) closeLog() {
	if e.log != nil {
		_ = e.log.Close()
	}
}

// ProcessState says, for a message, that the external module's process
// has exited and how; "" while it runs (or when there is none).
func (e *Webhook) ProcessState() string {
	if e == nil || e.cmd == nil {
		return ""
	}
	select {
	case <-e.exited:
		return fmt.Sprintf("; its process exited (%v)", e.cmd.ProcessState)
	default:
		return ""
	}
}

// LastOutput is the last lines the external module's process wrote, for a
// failure message, where the whole of it is kept, and how the process
// ended if it has (whatever the failure policy made of its silence); ""
// when there is no process.
func (e *Webhook) LastOutput() string {
	if e == nil || e.cmd == nil {
		return ""
	}
	ended := ""
	select {
	case <-e.exited:
		ended = fmt.Sprintf("the webhook's process exited (%v); ", e.cmd.ProcessState)
	default:
	}
	where := " (not kept: give presetsim run --report-dir to keep all of it)"
	if e.spec.LogFile != "" {
		where = " (all of it in " + e.spec.LogFile + ")"
	}
	tail := e.output.Tail()
	if tail == "" {
		return ended + "the webhook's process has written nothing" + where
	}
	return fmt.Sprintf("%sthe webhook's last output%s:\n  %s", ended, where, strings.ReplaceAll(tail, "\n", "\n  "))
}

// Stop stops the process group: SIGTERM, then SIGKILL after 5s.
func (e *Webhook) Stop() error {
	if e == nil {
		return nil
	}
	defer func() {
		if e.relay != nil {
			e.relay.Stop()
		}
		if e.dir != "" {
			_ = os.RemoveAll(e.dir)
		}
		if e.wroteKubeconfig {
			_ = os.Remove(e.spec.KubeconfigOut)
		}
	}()
	if e.cmd == nil || e.cmd.Process == nil {
		return nil
	}
	pgid := -e.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-e.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-e.exited
	}
	return nil
}

// Dial connects to the webhook's URL (its host and port: 443 when it names
// none) and hangs up (implementation.Process).
func (e *Webhook) Dial(ctx context.Context) error {
	u, err := url.Parse(e.spec.URL)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), cmp.Or(u.Port(), "443")))
	if err != nil {
		return err
	}
	return conn.Close()
}

// RefusedGrace is how long the webhook may refuse connections at start-up.
func (e *Webhook) RefusedGrace() time.Duration {
	switch {
	case e != nil && e.spec.RefusedGrace != 0:
		return e.spec.RefusedGrace
	case e != nil && e.spec.KubeconfigOut != "" && len(e.spec.Command) == 0:
		return OutsideGrace
	}
	return 10 * time.Second
}

// writeWhole writes data to path through a file beside it renamed into
// place, so that whoever waits for path reads all of it.
func writeWhole(path string, data []byte) error {
	if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// The abilities the harness asks of an external webhook.
var (
	_ backend.Findings          = (*Webhook)(nil)
	_ implementation.Answers    = (*Webhook)(nil)
	_ implementation.Deliveries = (*Webhook)(nil)
)
