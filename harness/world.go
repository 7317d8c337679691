package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/procs"
	"presetsim.dev/presetsim/outcome"
)

// Labels the harness puts on the namespaces it creates.
const (
	RunLabel       = backend.RunLabel
	AdmissionLabel = backend.AdmissionLabel
	LogicalLabel   = backend.LogicalLabel
)

// Options configure a World.
type Options struct {
	// Backend is where objects live: one of the packages under backends/
	// (envtest, offline, kind, cluster). Required: the harness links no
	// backend a caller does not ask for.
	Backend backend.Backend
	// Implementation is the implementation under test; the reference
	// module when nil.
	Implementation implementation.Implementation
	// Progress receives one line per start-up phase; io.Discard when nil.
	Progress io.Writer
	// Timeouts for waiting steps; the backend's (backend.Waits), or
	// DefaultTimeouts, when zero.
	Timeouts Timeouts
	// AllNamespaces makes the implementation admit pods in every namespace,
	// not only the run's scenario namespaces (for a live cluster, `presetsim
	// up`).
	AllNamespaces bool
	// Profile describes the implementation under test; when nil, the
	// implementation's own (implementation.Profiled), else
	// profile.Canonical().
	Profile *profile.Profile
	// ShowSecrets shows values that come from Secrets in messages; they are
	// masked otherwise.
	ShowSecrets bool
	// AcceptUnmutatedProbe starts the run even when the implementation
	// answers but mutates no probe pod, dry run or not: for a module that
	// does nothing on purpose (the no-op module that measures the suite).
	AcceptUnmutatedProbe bool
	// Leftovers are the backends whose leftovers of a killed run (a kind
	// cluster, say) this run removes when it finds them, besides its own
	// backend's (backend.Reaper): the presetsim command passes every
	// backend it knows.
	Leftovers backend.Registry
	// Nodes is the number of simulated nodes; DefaultNodes when zero. A
	// scenario may change it for itself ("Given the cluster has 5 nodes").
	Nodes int
	// Unsubscribed is what becomes of what the implementation does with
	// the requests its registration does not send it (UPDATE of pods, of
	// their ephemeral containers, CREATE of workloads), which the harness
	// sends it besides where it can keep its answers from the API server:
	// findings, failing nothing (backend.UnsubscribedReport, the default),
	// or judged as if its registration sent them (backend.UnsubscribedFail).
	Unsubscribed backend.Unsubscribed
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

// DefaultTimeouts are used for the fields of Options.Timeouts left zero,
// when the backend suggests none (backend.Waits).
//
// The settle window, one second, is how long a check that something does
// not happen ("should have no events", "should stay as submitted") watches:
// an API server writes an event, or a controller updates an object, within
// tens of milliseconds of the request that causes it on a quiet machine; a
// second leaves a wide margin for a loaded CI host without making every such
// check slow. A slower implementation (one that reports conflicts from a
// controller after the fact, say) needs a longer window: --settle for the
// run, or "for 5s" at the end of the step.
var DefaultTimeouts = Timeouts{Wait: 30 * time.Second, Settle: time.Second}

// withDefaults fills the zero fields: from the backend's suggestion, else
// from DefaultTimeouts.
func (t Timeouts) withDefaults(b backend.Backend) Timeouts {
	def := DefaultTimeouts
	if bw, ok := b.(backend.Waits); ok {
		def.Wait, def.Settle = bw.Waits()
	}
	if t.Wait == 0 {
		t.Wait = def.Wait
	}
	if t.Settle == 0 {
		t.Settle = def.Settle
	}
	return t
}

// World is the backend and the implementation under test shared by a run's
// scenarios.
type World struct {
	// RunID names this run; it labels every namespace the run creates.
	RunID string
	// Backend is the name of the backend the run's objects live on.
	Backend string
	// ServerVersion is the API server's version (empty offline).
	ServerVersion string
	Scheme        *runtime.Scheme
	// AnnotationPrefix is the prefix of the implementation's annotations.
	AnnotationPrefix string
	// Profile describes the implementation under test.
	Profile *profile.Profile
	// DefaultingNamespace is where expected objects are dry-run for defaults.
	DefaultingNamespace string
	// Timeouts bound the waits of steps.
	Timeouts Timeouts
	// Started is how long Start took, from the backend's start to the
	// implementation answering.
	Started time.Duration
	// DefaultNodes is the node count scenarios start with.
	DefaultNodes int
	// ShowSecrets shows values from Secrets in messages instead of a mask.
	ShowSecrets bool

	cluster backend.Cluster
	impl    implementation.Implementation
	procs   *procs.Records // what the run started and made, for a later run to reap
	// keepsRecord is true once the run started a process or made a
	// directory: then it keeps a record.
	keepsRecord bool
	// procsMu guards procs and keepsRecord while a start saves the record
	// beside the backend's or implementation's own calls (recordWhile).
	procsMu sync.Mutex
	stop    sync.Once
	stopErr error

	// probeNote is what the readiness probe saw that the run should know.
	probeNote string
	// acceptUnmutated is Options.AcceptUnmutatedProbe.
	acceptUnmutated bool
	// pool holds namespaces made ahead (namespaces.go); nil when there is
	// no API server to wait for them.
	pool *namespacePool
	// lags are the propagation lags the run measured (propagation.go).
	lags propagation
}

// Start starts the backend, installs the implementation under test on it
// and waits until it admits a probe pod: the one start sequence of every
// backend and implementation. On error, everything started is stopped.
func Start(ctx context.Context, opts Options) (_ *World, err error) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	if opts.Backend == nil {
		return nil, errors.New("harness: Options.Backend is nil: choose where objects live (envtest.New, offline.New, kind.New or cluster.New, packages under presetsim.dev/presetsim/backends)")
	}
	if opts.Implementation == nil {
		if opts.Implementation, err = module.Implementation(module.NewRegistry(), module.Reference); err != nil {
			return nil, err
		}
	}
	opts.Timeouts = opts.Timeouts.withDefaults(opts.Backend)
	if opts.Nodes == 0 {
		opts.Nodes = DefaultNodes
	}
	if p, ok := opts.Implementation.(implementation.Profiled); ok && opts.Profile == nil {
		if opts.Profile, err = p.Profile(); err != nil {
			return nil, fmt.Errorf("the profile of %s: %w", opts.Implementation.Name(), err)
		}
	}
	if opts.Profile == nil {
		opts.Profile = profile.Canonical()
	}
	if p, ok := opts.Implementation.(implementation.Preflight); ok {
		if err := p.Preflight(opts.Backend); err != nil {
			return nil, err
		}
	}

	began := time.Now()
	w := &World{
		RunID:            utilrand.String(6),
		Backend:          opts.Backend.Name(),
		ShowSecrets:      opts.ShowSecrets,
		Scheme:           manifest.Scheme(),
		AnnotationPrefix: opts.Profile.AnnotationPrefix(),
		Profile:          opts.Profile,
		Timeouts:         opts.Timeouts,
		DefaultNodes:     opts.Nodes,
		impl:             opts.Implementation,
		acceptUnmutated:  opts.AcceptUnmutatedProbe,
	}
	defer func() {
		if err != nil {
			_ = w.Stop()
		}
	}()
	// Every run reaps what killed runs left, whichever backend either
	// used; only a run that starts processes or makes directories keeps a
	// record of its own.
	reapLeftovers(procs.Records{}, opts.Backend, opts.Leftovers, progress)
	w.procs = &procs.Records{Run: w.RunID}
	keepDir := func(dir string) error {
		w.procsMu.Lock()
		defer w.procsMu.Unlock()
		w.keepsRecord = true
		return w.procs.Track(dir)
	}
	keepResource := func(name string) error {
		w.procsMu.Lock()
		defer w.procsMu.Unlock()
		w.keepsRecord = true
		return w.procs.TrackResource(procs.Resource{Backend: opts.Backend.Name(), Name: name})
	}
	w.keepsRecord = startsProcesses(opts.Backend) || startsProcesses(opts.Implementation)

	err = w.recordWhile(progress, func() (err error) {
		w.cluster, err = opts.Backend.Start(ctx, backend.Run{
			ID: w.RunID, Scheme: w.Scheme, Profile: w.Profile, Progress: progress, Wait: w.Timeouts.Wait, Nodes: opts.Nodes, KeepDir: keepDir, KeepResource: keepResource,
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if api := backend.APIOf(w.cluster); api != nil {
		w.ServerVersion = api.Version
	}

	target := implementation.Target{
		Cluster: w.cluster, Backend: w.Backend, RunID: w.RunID, Profile: w.Profile, Progress: progress, Wait: w.Timeouts.Wait, KeepDir: keepDir,
		Unsubscribed: opts.Unsubscribed,
		Namespaces:   &metav1.LabelSelector{MatchLabels: map[string]string{AdmissionLabel: w.RunID}},
	}
	if opts.AllNamespaces {
		target.Namespaces = nil
	}
	// The implementation's process, if any.
	if err := w.recordWhile(progress, func() error { return w.impl.Install(ctx, target) }); err != nil {
		return nil, err
	}

	if err := w.waitForImplementation(ctx); err != nil {
		return nil, err
	}
	if w.probeNote != "" {
		fmt.Fprintf(progress, "warning: %s\n", w.probeNote)
	}
	if backend.APIOf(w.cluster) != nil && !opts.AllNamespaces {
		w.startNamespacePool()
	}
	w.Started = time.Since(began)
	fmt.Fprintf(progress, "ready in %s (run %s, %s backend, %s)\n", w.Started.Round(10*time.Millisecond), w.RunID, w.Backend, w.impl.Name())
	return w, nil
}

// startsProcesses reports whether a backend or implementation starts child
// processes (backend.Processes).
func startsProcesses(x any) bool {
	p, ok := x.(backend.Processes)
	return ok && p.StartsProcesses()
}

// reapLeftovers stops what earlier runs that were killed (with SIGKILL,
// which no program can catch) left running, removes the directories they
// left, and says so.
func reapLeftovers(records procs.Records, own backend.Backend, others backend.Registry, progress io.Writer) {
	reaped, err := records.Reap()
	if n := len(reaped.Processes); n > 0 {
		fmt.Fprintf(progress, "stopped %d processes an earlier run left running when it was killed: %v\n", n, reaped.Processes)
	}
	if n := len(reaped.Dirs); n > 0 {
		fmt.Fprintf(progress, "removed %d directories an earlier run left when it was killed: %v\n", n, reaped.Dirs)
	}
	for _, res := range reaped.Resources {
		var reap func(string) error
		if reg, ok := others.Lookup(res.Backend); ok && reg.Reap != nil {
			reap = reg.Reap
		} else if r, ok := own.(backend.Reaper); ok && own.Name() == res.Backend {
			reap = r.Reap
		} else {
			fmt.Fprintf(progress, "warning: an earlier run that was killed left %s of the %s backend, which this run, on another backend, cannot remove: remove it by hand\n", res.Name, res.Backend)
			continue
		}
		if rerr := reap(res.Name); rerr != nil {
			fmt.Fprintf(progress, "warning: %s, left by an earlier run that was killed: %v\n", res.Name, rerr)
			continue
		}
		fmt.Fprintf(progress, "removed %s (%s backend), left by an earlier run when it was killed\n", res.Name, res.Backend)
	}
	if err != nil {
		fmt.Fprintf(progress, "warning: %v\n", err)
	}
}

// recordEvery is how often recordWhile saves the record during a start.
const recordEvery = 100 * time.Millisecond

// recordWhile runs start (a backend's or the implementation's), saving the
// run's record every recordEvery meanwhile and once more after it: a
// start launches processes without a word to the harness (envtest's etcd
// and kube-apiserver), and a run killed before it returns would otherwise
// leave them with no record for the next run to reap them by.
func (w *World) recordWhile(progress io.Writer, start func() error) error {
	done := make(chan struct{})
	var saver sync.WaitGroup
	saver.Add(1)
	go func() {
		defer saver.Done()
		t := time.NewTicker(recordEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				w.saveProcs(io.Discard) // the last save reports
			}
		}
	}()
	err := start()
	close(done)
	saver.Wait()
	w.saveProcs(progress)
	return err
}

// saveProcs records the processes the run has started so far, so that the
// next run can stop them if this one is killed; a failure is a warning.
func (w *World) saveProcs(progress io.Writer) {
	w.procsMu.Lock()
	defer w.procsMu.Unlock()
	if !w.keepsRecord {
		return
	}
	if err := w.procs.Save(); err != nil {
		fmt.Fprintf(progress, "warning: %v\n", err)
	}
}

// Objects is the backend's cluster, for package scenario; its abilities
// (backend.NodeSimulator, backend.Kubelet, ...) are asked for with a type
// assertion.
func (w *World) Objects() backend.Objects { return w.cluster }

// Implementation is the implementation under test.
func (w *World) Implementation() implementation.Implementation { return w.impl }

// CreateNamespace creates a namespace with labels and, on an API server,
// waits until it has its default ServiceAccount, without which pods are
// refused (for callers outside a scenario, such as presetsim bench).
func (w *World) CreateNamespace(ctx context.Context, name string, labels map[string]string) error {
	return w.cluster.CreateNamespace(ctx, name, labels)
}

// WaitForPreset waits until the implementation has seen the preset, as far
// as it can tell.
func (w *World) WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error {
	_, err := w.AwaitPreset(ctx, namespace, name, resourceVersion)
	return err
}

// AwaitPreset is WaitForPreset that also says whether the implementation
// was seen to take the preset up: not when the probe could not show it
// (implementation.ErrUnseen), which is no error either, and whose wait is
// no propagation lag.
func (w *World) AwaitPreset(ctx context.Context, namespace, name, resourceVersion string) (seen bool, err error) {
	err = w.impl.WaitForPreset(ctx, namespace, name, resourceVersion)
	if errors.Is(err, implementation.ErrUnseen) {
		return false, nil
	}
	return err == nil, err
}

// ModuleOutput is the last lines the implementation's process wrote and
// where all of it is kept, for a reader of failures; "" when the harness
// started no process.
func (w *World) ModuleOutput() string {
	if p := implementation.ProcessOf(w.impl); p != nil {
		return p.LastOutput()
	}
	return ""
}

// FailedRequests are the admission requests in the namespace (physical)
// that got no valid answer from the implementation: as the implementation
// saw them (implementation.Answers: the relay in front of a webhook) or as
// the cluster that called it in-process did (backend.AdmissionFailures);
// none when the harness cannot see them.
func (w *World) FailedRequests(namespace string) []string {
	var out []string
	if a, ok := w.impl.(implementation.Answers); ok {
		out = append(out, a.FailedRequests(namespace)...)
	}
	if a, ok := w.cluster.(backend.AdmissionFailures); ok {
		out = append(out, a.FailedRequests(namespace)...)
	}
	return out
}

// FindingsIn are what the implementation did with the requests of the
// namespace (physical) its registration does not send it, as the harness
// saw them in front of it or as the cluster that calls it in-process did
// (backend.Findings); none when the harness cannot see them.
func (w *World) FindingsIn(namespace string) []outcome.Finding {
	var out []outcome.Finding
	for _, x := range []any{w.impl, w.cluster} {
		if f, ok := x.(backend.Findings); ok {
			out = append(out, f.FindingsIn(namespace)...)
		}
	}
	return out
}

// PodCreateSent is how many times the implementation was sent the CREATE
// of the pod namespace (physical)/name (implementation.Deliveries); known
// is false when the harness cannot see its requests.
func (w *World) PodCreateSent(namespace, name string) (times int, known bool) {
	if d, ok := w.impl.(implementation.Deliveries); ok {
		return d.PodCreateSent(namespace, name)
	}
	return 0, false
}

// PodCreatesSent is how many pod creations of the namespace (physical) the
// implementation was sent, named or not (implementation.Deliveries); known
// is false when the harness cannot see its requests.
func (w *World) PodCreatesSent(namespace string) (n int, known bool) {
	if d, ok := w.impl.(implementation.Deliveries); ok {
		return d.PodCreatesSent(namespace)
	}
	return 0, false
}

// RegistrationFindings are what the implementation's own registration
// does against R5.4 (implementation.Deliveries), none when the harness
// registered it or cannot tell.
func (w *World) RegistrationFindings() []string {
	if d, ok := w.impl.(implementation.Deliveries); ok {
		return d.RegistrationFindings()
	}
	return nil
}

// Stop stops the implementation, then the backend. It is safe to call more
// than once and from a signal handler.
func (w *World) Stop() error {
	w.stop.Do(func() { w.stopErr = w.stopAll() })
	return w.stopErr
}

func (w *World) stopAll() error {
	w.pool.stop()
	var errs []error
	if w.impl != nil {
		errs = append(errs, w.impl.Stop())
	}
	if w.cluster != nil {
		errs = append(errs, w.cluster.Stop())
	}
	if err := errors.Join(errs...); err != nil {
		return err // the record stays, for the next run to reap what is left
	}
	w.procsMu.Lock()
	defer w.procsMu.Unlock()
	if w.procs != nil && w.keepsRecord {
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
	switch source := w.impl.CRD(); {
	case source == implementation.OwnCRD, w.Profile.CRDPath() != "":
		return ""
	case source == implementation.ReferenceCRD && w.Profile.Spec.ReferenceCRD:
		return ""
	}
	return fmt.Sprintf("profile %s names no CRD (spec.crd), so the harness installed its own %s CRD: R1 would test the harness, not the implementation", w.Profile.Metadata.Name, w.Profile.Spec.Preset.Kind)
}

// API is admin access to the run's API server (its config, kubeconfig and
// clients), for what the step API does not cover; ok is false on a backend
// without one (offline).
func (w *World) API() (api *backend.API, ok bool) {
	api = backend.APIOf(w.cluster)
	return api, api != nil
}
