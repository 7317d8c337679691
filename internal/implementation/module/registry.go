package module

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apiserver/pkg/admission"
	genericinitializer "k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"presetsim.dev/presetsim/internal/rollout"
	podpreset "presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Reference is the name of the reference PodPreset implementation.
const Reference = "reference"

// Deps are the clients of the API server a module runs against.
type Deps struct {
	Client  kubernetes.Interface
	Dynamic dynamic.Interface
}

// Running is a running in-process admission module.
type Running struct {
	// Plugin is served to the API server as a mutating webhook.
	Plugin admission.MutationInterface
	// WaitForPreset blocks until the module's cache holds the preset at
	// that resourceVersion, so a pod created next sees it.
	WaitForPreset func(ctx context.Context, namespace, name, resourceVersion string) error
	// Stop ends every goroutine the module started and waits for them;
	// held-back events are recorded first.
	Stop func()
}

// Runnable is a plug-in with work of its own to run for the module's life
// (an informer of its own kind of preset); Start blocks until ctx ends.
type Runnable interface {
	Start(ctx context.Context) error
}

// PresetWaiter is a plug-in that reads presets from a cache of its own and
// can tell when it holds one (Running.WaitForPreset).
type PresetWaiter interface {
	WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error
}

// Registry holds the in-process modules as the API server holds its
// admission plug-ins: factories by name in an admission.Plugins, each
// plug-in made by Plugins.InitPlugin and initialised by PluginInitializers.
type Registry struct {
	plugins *admission.Plugins
}

// NewRegistry returns a registry holding the reference plug-in as Reference.
func NewRegistry() *Registry {
	r := &Registry{plugins: admission.NewPlugins()}
	r.Register(Reference, podpreset.Factory)
	return r
}

// Register adds (or replaces) a module.
func (r *Registry) Register(name string, f admission.Factory) { r.plugins.Register(name, f) }

// Names lists the registered modules, sorted.
func (r *Registry) Names() []string { return r.plugins.Registered() }

// check reports an unknown name with the known ones.
func (r *Registry) check(name string) error {
	if !slices.Contains(r.plugins.Registered(), name) {
		return fmt.Errorf("unknown admission module %q (known: %v)", name, r.Names())
	}
	return nil
}

// cacheSyncTimeout bounds how long a module waits for its PodPreset
// cache's first list.
const cacheSyncTimeout = 20 * time.Second

// Start makes the named plug-in and runs it as the API server would run an
// in-tree one. What it needs is handed over by initializers: the clients
// and a stop channel by k8s.io/apiserver's own
// (WantsExternalKubeClientSet, WantsDynamicClient,
// WantsDrainedNotification), and by this package's (presetInitializer) the
// PodPreset lister of an informer over every namespace, with the opt-in
// rollout controller beside it as the reference runs it, the lister's sync
// as the plug-in's ReadyFunc, and an event recorder that resolves a pod's
// UID once the pod is stored. Only a plug-in that wants the lister needs
// the canonical PodPreset served. ctx lives as long as the module.
func (r *Registry) Start(ctx context.Context, name string, deps Deps) (*Running, error) {
	if err := r.check(name); err != nil {
		return nil, err
	}
	env := newEnvironment(ctx, deps)
	fail := func(err error) (*Running, error) {
		env.stop()
		return nil, err
	}
	initializers := admission.PluginInitializers{
		genericinitializer.New(deps.Client, deps.Dynamic, nil, nil, nil, nil, env.ctx.Done(), nil),
		presetInitializer{env},
	}
	plugin, err := r.plugins.InitPlugin(name, nil, initializers)
	if env.err != nil {
		return fail(env.err) // the cause of the missing lister InitPlugin reports
	}
	if err != nil {
		return fail(err)
	}
	mutating, ok := plugin.(admission.MutationInterface)
	if !ok {
		return fail(fmt.Errorf("admission module %q does not mutate (it is no admission.MutationInterface)", name))
	}
	if runnable, ok := plugin.(Runnable); ok {
		env.running.Go(func() {
			if err := runnable.Start(env.ctx); err != nil && env.ctx.Err() == nil {
				utilruntime.HandleError(fmt.Errorf("admission module %q: %w", name, err))
			}
		})
	}
	if ready, ok := plugin.(interface{ WaitForReady() bool }); ok && !ready.WaitForReady() {
		return fail(fmt.Errorf("admission module %q was not ready within the API server's 10 s", name))
	}
	var wait func(ctx context.Context, namespace, name, resourceVersion string) error
	switch w, ok := plugin.(PresetWaiter); {
	case ok:
		wait = w.WaitForPreset
	case env.lister != nil:
		if wait, err = presetWaiter(env.lister.Informer()); err != nil {
			return fail(err)
		}
	}
	return &Running{Plugin: mutating, WaitForPreset: wait, Stop: env.stop}, nil
}

// environment is what a module's plug-in runs in: its context, the
// goroutines it started, its event recorder, and the PodPreset lister once
// a plug-in wants one.
type environment struct {
	ctx         context.Context
	cancel      context.CancelFunc
	deps        Deps
	running     sync.WaitGroup
	broadcaster record.EventBroadcaster
	recorder    *UIDResolvingRecorder
	lister      *podpreset.InformerLister
	err         error // why the lister could not be had
}

func newEnvironment(ctx context.Context, deps Deps) *environment {
	env := &environment{deps: deps}
	env.ctx, env.cancel = context.WithCancel(ctx)
	// Not bound to env.ctx: stop cancels it first, and the events held
	// back until then are still to be recorded; stop shuts it down after.
	env.broadcaster = record.NewBroadcaster()
	env.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: deps.Client.CoreV1().Events("")})
	env.recorder = &UIDResolvingRecorder{
		EventRecorder: env.broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "podpreset-admission"}),
		Pods:          deps.Client.CoreV1(),
		Context:       env.ctx,
	}
	return env
}

// stop ends every goroutine the module started and waits for them:
// held-back events are recorded (without a UID) before the broadcaster
// shuts down, and later ones dropped.
func (env *environment) stop() {
	env.cancel()
	env.recorder.Close()
	env.broadcaster.Shutdown()
	env.running.Wait()
}

// presets starts the PodPreset informer and the rollout controller on it,
// once, and waits for the first list.
func (env *environment) presets() (*podpreset.InformerLister, error) {
	if env.lister != nil || env.err != nil {
		return env.lister, env.err
	}
	lister := podpreset.NewInformerLister(env.deps.Dynamic)
	watchErr := keepWatchError(lister.Informer())
	env.running.Go(func() { lister.Run(env.ctx) })
	syncCtx, syncCancel := context.WithTimeout(env.ctx, cacheSyncTimeout)
	synced := lister.WaitForCacheSync(syncCtx)
	syncCancel()
	if !synced {
		why := "in-process modules read the canonical PodPreset, so its CRD must be served"
		if cause, _ := watchErr.Load().(string); cause != "" {
			why = cause + ": " + why
		}
		env.err = fmt.Errorf("the module's cache of %s PodPresets did not sync within %s: %s", v1alpha1.SchemeGroupVersion, cacheSyncTimeout, why)
		return nil, env.err
	}
	roller, err := rollout.New(env.deps.Client, lister.Informer())
	if err != nil {
		env.err = err
		return nil, err
	}
	env.running.Go(func() { roller.Run(env.ctx) })
	env.lister = lister
	return lister, nil
}

// keepWatchError keeps the informer's last list or watch error, so that a
// cache that never syncs (the API server does not serve PodPresets) says
// why.
func keepWatchError(informer cache.SharedIndexInformer) *atomic.Value {
	var last atomic.Value
	// Setting the handler fails only once the informer has started.
	_ = informer.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		last.Store(err.Error())
		cache.DefaultWatchErrorHandler(ctx, r, err)
	})
	return &last
}

// presetInitializer is the admission.PluginInitializer of what a PodPreset
// plug-in wants beyond the API server's: the lister (with its sync as the
// plug-in's ReadyFunc) and the event recorder.
type presetInitializer struct{ env *environment }

var _ admission.PluginInitializer = presetInitializer{}

// Initialize implements admission.PluginInitializer. A lister that cannot
// be had is left unset; the plug-in's ValidateInitialization then fails,
// and Start reports the cause.
func (i presetInitializer) Initialize(plugin admission.Interface) {
	if wants, ok := plugin.(podpreset.WantsPodPresetLister); ok {
		if lister, err := i.env.presets(); err == nil {
			wants.SetPodPresetLister(lister)
			if h, ok := plugin.(interface{ SetReadyFunc(admission.ReadyFunc) }); ok {
				h.SetReadyFunc(lister.Informer().HasSynced)
			}
		}
	}
	if wants, ok := plugin.(podpreset.WantsEventRecorder); ok {
		wants.SetEventRecorder(i.env.recorder)
	}
}
