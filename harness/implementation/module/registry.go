package module

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	podpreset "presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/rollout"
)

// Reference is the name of the reference PodPreset implementation.
const Reference = "reference"

// Deps is what an in-process module may use to build itself.
type Deps struct {
	Client  kubernetes.Interface
	Dynamic dynamic.Interface
}

// Running is a running in-process admission module.
type Running struct {
	// Plugin is served to the API server as a mutating webhook.
	Plugin admission.MutationInterface
	// WaitForPreset, when set, blocks until the module's cache holds the
	// preset at that resourceVersion, so a pod created next sees it.
	WaitForPreset func(ctx context.Context, namespace, name, resourceVersion string) error
	// Stop releases what the module started (informers, event broadcasters).
	Stop func()
}

// Factory builds an in-process module. ctx lives as long as the module.
type Factory func(ctx context.Context, deps Deps) (*Running, error)

// Registry is a registry of in-process admission modules by name.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns a registry holding the reference module.
func NewRegistry() *Registry {
	m := &Registry{factories: map[string]Factory{}}
	m.Register(Reference, NewReference)
	return m
}

// Register adds (or replaces) a module.
func (m *Registry) Register(name string, f Factory) { m.factories[name] = f }

// Names lists the registered modules, sorted.
func (m *Registry) Names() []string {
	names := make([]string, 0, len(m.factories))
	for n := range m.factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the named module's factory.
func (m *Registry) Get(name string) (Factory, error) {
	f, ok := m.factories[name]
	if !ok {
		return nil, fmt.Errorf("unknown admission module %q (known: %v)", name, m.Names())
	}
	return f, nil
}

// Parts are the pieces the reference module is built from, for
// modules that wrap or replace its plug-in: an informer-backed PodPreset
// lister (its informer watches every namespace) and an event recorder that
// resolves a pod's UID once the pod is stored.
type Parts struct {
	Lister   *podpreset.InformerLister
	Recorder record.EventRecorder
}

// NewReference builds the reference plug-in of package
// presets/admission with an informer-backed lister and an event recorder.
func NewReference(ctx context.Context, deps Deps) (*Running, error) {
	return New(func(parts Parts) (admission.MutationInterface, error) {
		plugin := podpreset.New()
		plugin.SetPodPresetLister(parts.Lister)
		plugin.SetEventRecorder(parts.Recorder)
		if err := plugin.ValidateInitialization(); err != nil {
			return nil, err
		}
		return plugin, nil
	})(ctx, deps)
}

// cacheSyncTimeout bounds how long an in-process module waits for its
// PodPreset cache's first list.
const cacheSyncTimeout = 20 * time.Second

// New returns the factory of an in-process module whose plug-in
// newPlugin makes from the reference module's parts. The module also runs
// the opt-in rollout controller, as the reference does.
func New(newPlugin func(Parts) (admission.MutationInterface, error)) Factory {
	return func(ctx context.Context, deps Deps) (*Running, error) {
		lister := podpreset.NewInformerLister(deps.Dynamic)
		// Keep the informer's last list or watch error: a cache that never
		// syncs (the API server does not serve PodPresets) says why.
		var watchErr atomic.Value
		if err := lister.Informer().SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
			watchErr.Store(err.Error())
			cache.DefaultWatchErrorHandler(ctx, r, err)
		}); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(ctx)
		var running sync.WaitGroup
		running.Go(func() { lister.Run(ctx) })
		syncCtx, syncCancel := context.WithTimeout(ctx, cacheSyncTimeout)
		synced := lister.WaitForCacheSync(syncCtx)
		syncCancel()
		if !synced {
			cancel()
			running.Wait()
			why := "in-process modules read the canonical PodPreset, so its CRD must be served"
			if cause, _ := watchErr.Load().(string); cause != "" {
				why = cause + ": " + why
			}
			return nil, fmt.Errorf("the module's cache of %s PodPresets did not sync within %s: %s", v1alpha1.SchemeGroupVersion, cacheSyncTimeout, why)
		}
		broadcaster := record.NewBroadcaster(record.WithContext(ctx))
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: deps.Client.CoreV1().Events("")})
		recorder := &podpreset.UIDResolvingRecorder{
			EventRecorder: broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "podpreset-admission"}),
			Pods:          deps.Client.CoreV1(),
			Context:       ctx,
		}
		// stop ends every goroutine the module started and waits for them:
		// held-back events are recorded (without a UID) before the
		// broadcaster shuts down.
		stop := func() {
			cancel()
			recorder.Wait()
			broadcaster.Shutdown()
			running.Wait()
		}

		// The opt-in rollout controller shares the lister's watch; it acts only in
		// namespaces labelled rollout.EnableLabel=true.
		roller, err := rollout.New(deps.Client, lister.Informer())
		if err != nil {
			stop()
			return nil, err
		}
		running.Go(func() { roller.Run(ctx) })

		plugin, err := newPlugin(Parts{Lister: lister, Recorder: recorder})
		if err != nil {
			stop()
			return nil, err
		}
		waitForPreset, err := presetWaiter(lister.Informer())
		if err != nil {
			stop()
			return nil, err
		}
		return &Running{Plugin: plugin, WaitForPreset: waitForPreset, Stop: stop}, nil
	}
}
