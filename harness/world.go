package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"presetsim.dev/presetsim/harness/controlplane"
	"presetsim.dev/presetsim/harness/kindcluster"
	"presetsim.dev/presetsim/harness/manifest"
	"presetsim.dev/presetsim/harness/nodes"
	"presetsim.dev/presetsim/harness/procs"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/harness/webhook"
	"presetsim.dev/presetsim/presets"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Labels the harness puts on the namespaces it creates.
const (
	// RunLabel carries the run id on every namespace of a run.
	RunLabel = "presetsim.dev/run"
	// AdmissionLabel carries the run id on the namespaces the module under
	// test is registered for (not on the defaulting namespace).
	AdmissionLabel = "presetsim.dev/admission"
	// LogicalLabel carries the logical name of a scenario namespace.
	LogicalLabel = "presetsim.dev/logical"
)

// Options configure a World.
type Options struct {
	// BinDir holds the control-plane binaries; FindBinaries when empty.
	BinDir string
	// Module is the in-process admission module to test; "reference" when empty.
	Module string
	// External, when set, tests someone else's webhook instead of an
	// in-process module (envtest backend only).
	External *ExternalModule
	// Modules is the registry Module is looked up in; NewModules() when nil.
	Modules *Modules
	// Progress receives one line per start-up phase; io.Discard when nil.
	Progress io.Writer
	// Timeouts for waiting steps; DefaultTimeouts when zero.
	Timeouts Timeouts
	// AllNamespaces registers the module's webhook for every namespace, not
	// only the run's scenario namespaces (for a live cluster, `presetsim up`).
	AllNamespaces bool
	// Backend is where objects live; Envtest when empty.
	Backend Backend
	// Profile describes the implementation under test; profile.Canonical()
	// when nil.
	Profile *profile.Profile
	// Kubeconfig is the path of the existing cluster's kubeconfig, for the
	// Cluster backend.
	Kubeconfig string
	// ShowSecrets shows values that come from Secrets in messages; they are
	// masked as Mask otherwise.
	ShowSecrets bool
	// Kind configures the kind backend.
	Kind KindOptions
	// AcceptUnmutatedProbe starts the run even when the module answers but
	// mutates no probe pod, dry run or not: for a module that does nothing
	// on purpose (the no-op module that measures the suite).
	AcceptUnmutatedProbe bool
	// Nodes is the number of simulated nodes; DefaultNodes when zero. A
	// scenario may change it for itself ("Given the cluster has 5 nodes").
	Nodes int
}

// DefaultNodes is the number of simulated nodes a run starts with.
const DefaultNodes = 3

// Timeouts bound the harness's waits.
type Timeouts struct {
	// Wait bounds waiting for something that should happen (an event, pods).
	Wait time.Duration
	// Settle is how long something that should not happen is watched for.
	Settle time.Duration
	// Step bounds one step, so that an API server that stops answering
	// fails the step instead of hanging the run; 2 minutes when zero.
	Step time.Duration
}

// StepTimeout is the bound of one step.
func (t Timeouts) StepTimeout() time.Duration {
	if t.Step == 0 {
		return 2 * time.Minute
	}
	return t.Step
}

// DefaultTimeouts are used when Options.Timeouts is zero.
var DefaultTimeouts = Timeouts{Wait: 30 * time.Second, Settle: time.Second}

// OfflineTimeouts are used on the offline backend when Options.Timeouts is
// zero. Everything happens in-process (events come from an in-process
// broadcaster in well under a millisecond), so waits are bounded by 5s and
// something that should not happen is watched for 200ms.
var OfflineTimeouts = Timeouts{Wait: 5 * time.Second, Settle: 200 * time.Millisecond}

// World is the backend and admission module shared by a run's scenarios.
type World struct {
	// RunID names this run; it labels every namespace the run creates.
	RunID string
	// Backend is where the run's objects live.
	Backend Backend
	// ServerVersion is the API server's version (empty offline).
	ServerVersion string
	// Config and KubeConfig give admin access to the API server (nil for
	// the offline backend, as are Client, Dynamic and Mapper).
	Config     *rest.Config
	KubeConfig []byte
	Client     kubernetes.Interface
	Dynamic    dynamic.Interface
	Mapper     meta.RESTMapper
	Scheme     *runtime.Scheme
	// AnnotationPrefix is the prefix of the module's pod annotations.
	AnnotationPrefix string
	// Profile describes the implementation under test.
	Profile *profile.Profile
	// DefaultingNamespace is where expected objects are dry-run for defaults.
	DefaultingNamespace string
	// Timeouts bound the waits of steps.
	Timeouts Timeouts
	// Started is how long Start took, from binaries found to webhook answering.
	Started time.Duration
	// BinDir holds the control-plane binaries (and kubectl) of this run.
	BinDir string
	// Nodes simulates the cluster's nodes and their kubelet.
	Nodes *nodes.Simulator
	// DefaultNodes is the node count scenarios start with.
	DefaultNodes int
	// ShowSecrets shows values from Secrets in messages instead of Mask.
	ShowSecrets bool

	cluster  cluster
	cleanup  func() error // undoes what the run created on an existing cluster
	external *external
	cp       *controlplane.ControlPlane
	module   *InProcess
	server   *webhook.Server
	kind     *kindcluster.Cluster // the kind backend's cluster
	procs    *procs.Records       // what the run started, for a later run to reap; nil when it starts no process
	images   *webhook.Server      // the kind backend's image mirror
	cancel   context.CancelFunc
	stop     sync.Once
	stopErr  error

	// probeNote is what the readiness probe saw that the run should know.
	probeNote string
	// acceptUnmutated is Options.AcceptUnmutatedProbe.
	acceptUnmutated bool
}

// Start starts the control plane, installs the PodPreset CRD, serves the
// admission module as a webhook and waits until the API server calls it.
// On error, everything started is stopped again.
func Start(ctx context.Context, opts Options) (_ *World, err error) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	if opts.Modules == nil {
		opts.Modules = NewModules()
	}
	if opts.Module == "" {
		opts.Module = ReferenceModule
	}
	if opts.Timeouts == (Timeouts{}) {
		opts.Timeouts = DefaultTimeouts
		if opts.Backend == Offline {
			opts.Timeouts = OfflineTimeouts
		}
	}
	if opts.Nodes == 0 {
		opts.Nodes = DefaultNodes
	}
	if opts.Profile == nil {
		opts.Profile = profile.Canonical()
	}
	var factory ModuleFactory
	if opts.External == nil && opts.Backend != Cluster {
		if factory, err = opts.Modules.Get(opts.Module); err != nil {
			return nil, err
		}
	}
	switch opts.Backend {
	case "", Envtest:
	case Offline:
		if opts.External != nil {
			return nil, errors.New("an external module is called by an API server: use the envtest backend")
		}
		if opts.Profile.PresetGVK() != v1alpha1.SchemeGroupVersion.WithKind("PodPreset") {
			return nil, fmt.Errorf("the offline backend stores only the canonical PodPreset; profile %s uses %s", opts.Profile.Metadata.Name, opts.Profile.PresetGVK())
		}
		return startOffline(ctx, opts, factory)
	case Cluster:
		return startExisting(ctx, opts)
	case Kind:
		return startKind(ctx, opts, factory)
	default:
		return nil, fmt.Errorf("unknown backend %q (known: %v)", opts.Backend, Backends())
	}
	if opts.BinDir == "" {
		if opts.BinDir, err = FindBinaries(); err != nil {
			return nil, err
		}
	}

	began := time.Now()
	w := newWorld(Envtest, opts)
	w.BinDir = opts.BinDir
	defer func() {
		if err != nil {
			_ = w.Stop()
		}
	}()
	w.procs = &procs.Records{}
	reapLeftovers(*w.procs, progress)
	fmt.Fprintf(progress, "starting etcd, kube-apiserver, kube-controller-manager and kube-scheduler ...\n")
	w.cp, err = controlplane.Start(ctx, controlplane.Options{BinDir: opts.BinDir})
	w.saveProcs(progress)
	if err != nil {
		return nil, err
	}
	if err := w.connect(w.cp.Config); err != nil {
		return nil, err
	}
	w.KubeConfig = w.cp.KubeConfig
	fmt.Fprintf(progress, "control plane up in %s; starting %d simulated nodes ...\n", since(began), opts.Nodes)
	if w.Nodes, err = nodes.Start(ctx, w.Client, nodes.Options{Prefix: "presetsim-node-", Nodes: opts.Nodes, KubeletVersion: w.ServerVersion}); err != nil {
		return nil, fmt.Errorf("unable to start the simulated nodes: %w", err)
	}
	w.cluster = &apiCluster{client: w.Client, dynamic: w.Dynamic, rest: w.Mapper, nodes: w.Nodes, wait: w.Timeouts.Wait}
	fmt.Fprintf(progress, "nodes ready in %s; installing the %s CRD ...\n", since(began), w.presetKind())
	if err := w.installCRD(ctx); err != nil {
		return nil, err
	}
	if opts.External != nil {
		fmt.Fprintf(progress, "registering the external webhook %s ...\n", opts.External.URL)
		if err := w.startExternal(ctx, *opts.External, opts.AllNamespaces); err != nil {
			return nil, err
		}
	} else {
		fmt.Fprintf(progress, "serving admission module %q as a webhook ...\n", opts.Module)
		if err := w.startModule(opts.Module, factory, ModuleDeps{Client: w.Client, Dynamic: w.Dynamic}); err != nil {
			return nil, err
		}
		if err := w.serveModule(ctx, opts.AllNamespaces); err != nil {
			return nil, err
		}
	}
	w.saveProcs(progress) // the external webhook's process, if any
	if err := w.ready(ctx, progress, began, ""); err != nil {
		return nil, err
	}
	return w, nil
}

// reapLeftovers stops what earlier runs that were killed (with SIGKILL,
// which no program can catch) left running, and says so.
func reapLeftovers(records procs.Records, progress io.Writer) {
	stopped, err := records.Reap()
	if len(stopped) > 0 {
		fmt.Fprintf(progress, "stopped %d processes an earlier run left running when it was killed: %v\n", len(stopped), stopped)
	}
	if err != nil {
		fmt.Fprintf(progress, "warning: %v\n", err)
	}
}

// saveProcs records the processes the run has started so far, so that the
// next run can stop them if this one is killed; a failure is a warning.
func (w *World) saveProcs(progress io.Writer) {
	if w.procs == nil {
		return
	}
	if err := w.procs.Save(); err != nil {
		fmt.Fprintf(progress, "warning: %v\n", err)
	}
}

// CreateNamespace creates a namespace with labels and, on an API server,
// waits until it has its default ServiceAccount, without which pods are
// refused (for callers outside a scenario, such as presetsim bench).
func (w *World) CreateNamespace(ctx context.Context, name string, labels map[string]string) error {
	return w.cluster.createNamespace(ctx, name, labels)
}

// startModule starts the in-process module; Stop stops it.
func (w *World) startModule(name string, factory ModuleFactory, deps ModuleDeps) error {
	var moduleCtx context.Context
	moduleCtx, w.cancel = context.WithCancel(context.Background())
	var err error
	if w.module, err = factory(moduleCtx, deps); err != nil {
		return fmt.Errorf("unable to start admission module %q: %w", name, err)
	}
	return nil
}

// ready waits until the module answers (waitForModule) and records how
// long the start took.
func (w *World) ready(ctx context.Context, progress io.Writer, began time.Time, what string) error {
	if err := w.waitForModule(ctx); err != nil {
		return err
	}
	if w.probeNote != "" {
		fmt.Fprintf(progress, "warning: %s\n", w.probeNote)
	}
	w.Started = time.Since(began)
	fmt.Fprintf(progress, "ready in %s (run %s%s)\n", since(began), w.RunID, what)
	return nil
}

// newWorld returns a World for the backend with what every backend sets
// from the options: a run id, the scheme, the profile and the timeouts.
func newWorld(backend Backend, opts Options) *World {
	return &World{
		RunID:            utilrand.String(6),
		Backend:          backend,
		ShowSecrets:      opts.ShowSecrets,
		Scheme:           manifest.Scheme(),
		AnnotationPrefix: opts.Profile.AnnotationPrefix(),
		Profile:          opts.Profile,
		Timeouts:         opts.Timeouts,
		DefaultNodes:     opts.Nodes,
		acceptUnmutated:  opts.AcceptUnmutatedProbe,
	}
}

// presetKind is the kind of the implementation's preset, as its profile
// names it ("PodPreset", "PodDefault"), for messages.
func (w *World) presetKind() string {
	if w.Profile == nil {
		return "PodPreset"
	}
	return w.Profile.PresetGVK().Kind
}

func since(t time.Time) time.Duration { return time.Since(t).Round(10 * time.Millisecond) }

// connect makes the World's clients for cfg and reads the API server's
// version, which also proves that it answers.
func (w *World) connect(cfg *rest.Config) error {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 200, 400
	cfg.WarningHandlerWithContext = contextWarnings{}
	w.Config = cfg
	var err error
	if w.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	if w.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return err
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	if w.Mapper, err = apiutil.NewDynamicRESTMapper(cfg, httpClient); err != nil {
		return err
	}
	version, err := w.Client.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("unable to reach the API server at %s: %w", cfg.Host, err)
	}
	w.ServerVersion = version.GitVersion
	return nil
}

func (w *World) installCRD(ctx context.Context) error {
	crd, err := presets.CRD()
	if err != nil {
		return err
	}
	if own, err := w.Profile.CRD(); err != nil {
		return err
	} else if own != nil {
		crd = own
	}
	cs, err := apiextensionsclient.NewForConfig(w.Config)
	if err != nil {
		return err
	}
	_, err = cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// A reused kind cluster has it from an earlier run: make it ours.
		var got *apiextensionsv1.CustomResourceDefinition
		if got, err = cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{}); err == nil {
			got.Spec = crd.Spec
			_, err = cs.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, got, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("unable to install the %s CRD: %w", w.presetKind(), err)
	}
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("the %s CRD was not established: %w", w.presetKind(), err)
	}
	return nil
}

func (w *World) serveModule(ctx context.Context, allNamespaces bool) error {
	return w.serveModuleOn(ctx, "127.0.0.1", allNamespaces)
}

// serveModuleOn serves the in-process module as a webhook on host (an IP
// address the API server reaches) and registers it.
func (w *World) serveModuleOn(ctx context.Context, host string, allNamespaces bool) error {
	mux := http.NewServeMux()
	mux.Handle("/mutate-pods", webhook.NewHandler(w.module.Plugin, w.Scheme))
	var err error
	if w.server, err = webhook.Serve(host, mux); err != nil {
		return err
	}
	return w.registerWebhook(ctx, webhook.PodConfig{URL: w.server.URL + "/mutate-pods", CABundle: w.server.CABundle}, allNamespaces)
}

// webhookConfigName is the name of the run's MutatingWebhookConfiguration.
func (w *World) webhookConfigName() string { return "presetsim-" + w.RunID }

// registerWebhook registers the module's webhook for the run's scenario
// namespaces (or every namespace) under the run's name.
func (w *World) registerWebhook(ctx context.Context, c webhook.PodConfig, allNamespaces bool) error {
	c.Name = webhookName
	c.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{AdmissionLabel: w.RunID}}
	if allNamespaces {
		c.NamespaceSelector = nil
	}
	cfg := webhook.MutatingWebhookConfiguration(c)
	cfg.Name = w.webhookConfigName()
	if _, err := w.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("unable to register the webhook: %w", err)
	}
	return nil
}

// webhookName names the module's webhook in its registration.
const webhookName = "podpreset.presetsim.dev"

// waitForModule creates the defaulting namespace and a probe namespace with
// a preset, then dry-runs a pod there until it comes back mutated: proof that
// the backend calls the module (on envtest: the API server calls the
// webhook) and the module sees presets.
func (w *World) waitForModule(ctx context.Context) error {
	w.DefaultingNamespace = "presetsim-" + w.RunID + "-defaults"
	if err := w.cluster.createNamespace(ctx, w.DefaultingNamespace, map[string]string{RunLabel: w.RunID}); err != nil {
		return err
	}
	probeNS := "presetsim-" + w.RunID + "-probe"
	if err := w.cluster.createNamespace(ctx, probeNS, map[string]string{RunLabel: w.RunID, AdmissionLabel: w.RunID}); err != nil {
		return err
	}
	pp := &v1alpha1.PodPreset{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: probeNS},
		Spec: v1alpha1.PodPresetSpec{
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"presetsim.dev/probe": "true"}},
			Env:      []corev1.EnvVar{{Name: "PRESETSIM_PROBE", Value: "1"}},
		},
	}
	created, err := w.createPreset(ctx, pp)
	if err != nil {
		return fmt.Errorf("unable to create the probe %s: %w", w.presetKind(), err)
	}
	if err := w.WaitForPreset(ctx, probeNS, "probe", created); err != nil {
		return err
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: probeNS, Labels: map[string]string{"presetsim.dev/probe": "true"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "probe", Image: "probe"}}},
	}
	podObj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return err
	}
	var (
		last          error
		refusedSince  time.Time
		failingSince  time.Time
		unmutated     int
		triedRealPods int
	)
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := w.cluster.create(ctx, podsResource, &unstructured.Unstructured{Object: podObj}, createOptions{dryRun: true})
		if err != nil {
			if ctx.Err() != nil && last != nil {
				return false, nil // the deadline, not news: keep what the API server said
			}
			last = err
			// A webhook that keeps refusing connections is a setup error,
			// said once, not a failure of every scenario.
			if !isRefused(err) {
				refusedSince = time.Time{}
				// The API server reached the webhook and could not use its
				// answer (a malformed response, an error): say so in seconds,
				// in the API server's own words.
				if failingSince.IsZero() {
					failingSince = time.Now()
				} else if time.Since(failingSince) > answerGrace {
					return false, fmt.Errorf("the API server cannot use the %s webhook's answers: %v%s", w.Profile.Spec.Preset.Kind, err, w.external.processState())
				}
			} else if refusedSince.IsZero() {
				refusedSince = time.Now()
			} else if grace := w.external.refusedGrace(); time.Since(refusedSince) > grace {
				return false, fmt.Errorf("the webhook refuses connections (for %s): %v%s", grace, err, w.external.processState())
			}
			if state := w.external.processState(); state != "" {
				return false, fmt.Errorf("the webhook does not answer: %v%s", err, state)
			}
			return false, nil
		}
		failingSince, refusedSince = time.Time{}, time.Time{}
		// Look for the injected env var, not the annotation: a module that
		// writes no annotation (or another key) still answers.
		if mutated, err := hasProbeVar(got); err != nil || mutated {
			return mutated, err
		}
		unmutated++
		last = fmt.Errorf("the webhook answered, but did not mutate the dry-run probe pod (no %s)", probeVar)
		if unmutated%20 != 0 {
			return false, nil
		}
		// It answers: maybe it leaves dry runs alone (R2.1). A real pod tells.
		triedRealPods++
		mutated, err := w.probeRealPod(ctx, podObj, triedRealPods)
		if err != nil {
			last = err
			return false, nil
		}
		if mutated {
			w.probeNote = "the webhook answers, but did not mutate the dry-run probe pod, only a real one: dry-run scenarios (R2.1) will fail"
			return true, nil
		}
		last = fmt.Errorf("the webhook answered, but mutated neither the dry-run probe pod nor a real one (no %s): it does not apply the probe %s", probeVar, w.Profile.Spec.Preset.Kind)
		switch {
		case w.acceptUnmutated:
			w.probeNote = last.Error()
			return true, nil
		case triedRealPods >= 3:
			return false, last // it answers, so waiting longer will not help
		}
		return false, nil
	})
	if err != nil {
		if !wait.Interrupted(err) {
			err = fmt.Errorf("setup error: %w", err)
		} else {
			err = fmt.Errorf("the admission webhook is not ready after 30s: %v%s", last, w.external.processState())
		}
		if output := w.external.lastOutput(); output != "" {
			err = fmt.Errorf("%w\n%s", err, output)
		}
		return err
	}
	return nil
}

// ModuleOutput is the last lines an external webhook's process wrote and
// where all of it is kept, for a reader of failures; "" when the harness
// started no process.
func (w *World) ModuleOutput() string { return w.external.lastOutput() }

// answerGrace is how long the readiness probe lets the API server fail to
// use a webhook's answers before it says so: long enough for a webhook that
// is still starting, short enough to show a real cause at once.
const answerGrace = 5 * time.Second

// probeVar is the env var the probe preset injects.
const probeVar = "PRESETSIM_PROBE"

// hasProbeVar reports whether a probe pod got the probe preset's env var.
func hasProbeVar(u *unstructured.Unstructured) (bool, error) {
	probe, err := toPod(u)
	if err != nil {
		return false, err
	}
	for _, c := range probe.Spec.Containers {
		for _, e := range c.Env {
			if e.Name == probeVar {
				return true, nil
			}
		}
	}
	return false, nil
}

// probeRealPod creates the probe pod for real (not as a dry run), reports
// whether it was mutated, and deletes it.
func (w *World) probeRealPod(ctx context.Context, podObj map[string]any, n int) (bool, error) {
	pod := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(podObj)}
	pod.SetName(fmt.Sprintf("probe-real-%d", n))
	got, err := w.cluster.create(ctx, podsResource, pod, createOptions{})
	if err != nil {
		return false, fmt.Errorf("the webhook answered, but did not mutate the dry-run probe pod, and a real probe pod was refused: %w", err)
	}
	if err := w.cluster.delete(ctx, podsResource, got.GetNamespace(), got.GetName()); err != nil && !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("unable to delete the real probe pod: %w", err)
	}
	return hasProbeVar(got)
}

func (w *World) createPreset(ctx context.Context, pp *v1alpha1.PodPreset) (string, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pp)
	if err != nil {
		return "", err
	}
	impl, gvr, err := w.presetObject(&unstructured.Unstructured{Object: u})
	if err != nil {
		return "", err
	}
	obj, err := w.cluster.create(ctx, gvr, impl, createOptions{})
	if err != nil {
		return "", err
	}
	return obj.GetResourceVersion(), nil
}

// WaitForPreset waits until the module has seen the preset: an in-process
// module that can tell says so; an external one is probed (probePreset);
// otherwise it returns at once.
func (w *World) WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error {
	if w.external != nil || w.Backend == Cluster {
		return w.probePreset(ctx, namespace, name)
	}
	if w.module == nil || w.module.WaitForPreset == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.Timeouts.Wait)
	defer cancel()
	return w.module.WaitForPreset(ctx, namespace, name, resourceVersion)
}

// Stop stops the module, the webhook server and the control plane. It is
// safe to call more than once and from a signal handler.
func (w *World) Stop() error {
	w.stop.Do(func() { w.stopErr = w.stopAll() })
	return w.stopErr
}

func (w *World) stopAll() error {
	var errs []error
	if w.module != nil && w.module.Stop != nil {
		w.module.Stop()
	}
	if w.cancel != nil {
		w.cancel()
	}
	errs = append(errs, w.external.stop())
	if w.cleanup != nil {
		errs = append(errs, w.cleanup())
	}
	if w.Nodes != nil {
		w.Nodes.Stop()
	}
	if w.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, w.server.Stop(ctx))
		cancel()
	}
	if w.cp != nil {
		errs = append(errs, w.cp.Stop())
	}
	errs = append(errs, w.stopKind())
	if err := errors.Join(errs...); err != nil {
		return err // the record stays, for the next run to reap what is left
	}
	if w.procs != nil {
		return w.procs.Remove()
	}
	return nil
}

// HarnessCRD says why the R1 scenarios (the API object) would test the
// harness's own CRD rather than the implementation's, or "" when they test
// the implementation's: an installed implementation brought its own, a
// profile may name one (spec.crd), and an in-process module whose profile
// says its API is the reference CRD (spec.referenceCRD, as the canonical
// profile does) is checked with the CRD the harness installs. An external
// webhook is never judged by the harness's CRD.
func (w *World) HarnessCRD() string {
	switch {
	case w.Backend == Cluster, w.Profile.CRDPath() != "":
		return ""
	case w.external == nil && w.Profile.Spec.ReferenceCRD:
		return ""
	}
	return fmt.Sprintf("profile %s names no CRD (spec.crd), so the harness installed its own %s CRD: R1 would test the harness, not the implementation", w.Profile.Metadata.Name, w.Profile.Spec.Preset.Kind)
}
