package policyplugin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// Deps are what the plug-ins read besides their policies.
type Deps struct {
	// Namespaces is the cluster's client: the plug-ins read its namespaces
	// (labelled kubernetes.io/metadata.name), and nothing else of it.
	Namespaces kubernetes.Interface
	// Dynamic and Mapper are the cluster's, for policies with parameters.
	Dynamic dynamic.Interface
	Mapper  meta.RESTMapper
	// Scheme knows the admitted kinds (creates and converts them).
	Scheme *runtime.Scheme
	// Default defaults an admitted object in place, as the API server does
	// after each patch; nil leaves it as patched.
	Default func(runtime.Object)
	// Policies are policies and bindings stored before the plug-ins start:
	// the first admission sees them all (the plug-ins are not ready before
	// they have compiled what they listed). What is written later through
	// Client takes effect a refresh later, as in an API server.
	Policies []runtime.Object
}

// Chain is the two plug-ins, started.
type Chain struct {
	client   *Client
	mutating *mutating.Plugin
	validate *validating.Plugin
	objects  admission.ObjectInterfaces
	stop     chan struct{}
	stopOnce sync.Once
}

var (
	_ admission.MutationInterface   = &Chain{}
	_ admission.ValidationInterface = &Chain{}
)

// readyTimeout bounds the wait for the plug-ins' informers at Start.
const readyTimeout = 10 * time.Second

// Start builds both plug-ins, initialises them as an API server's
// admission initialisers do, starts their informers and waits until they
// have synced. Stop stops what it started.
func Start(ctx context.Context, d Deps) (*Chain, error) {
	if d.Namespaces == nil || d.Dynamic == nil || d.Mapper == nil || d.Scheme == nil {
		return nil, errors.New("policy plug-ins: the namespaces' client, a dynamic client, a REST mapper and a scheme are needed")
	}
	c := &Chain{client: newClient(d.Namespaces), stop: make(chan struct{}), objects: newObjects(d.Scheme, d.Default)}
	if err := c.client.store(ctx, d.Policies); err != nil {
		return nil, fmt.Errorf("policy plug-ins: %w", err)
	}
	var err error
	if c.mutating, err = mutating.NewPlugin(nil); err != nil {
		return nil, fmt.Errorf("policy plug-ins: %w", err)
	}
	if c.validate, err = validating.NewPlugin(nil); err != nil {
		return nil, fmt.Errorf("policy plug-ins: %w", err)
	}
	factory := informers.NewSharedInformerFactory(c.client, 0)
	for _, p := range []initialisable{c.mutating, c.validate} {
		p.SetExternalKubeInformerFactory(factory)
		p.SetExternalKubeClientSet(c.client)
		p.SetDynamicClient(d.Dynamic)
		p.SetRESTMapper(d.Mapper)
		p.SetDrainedNotification(c.stop)
		p.SetUnconditionalAuthorizer(allowAll{})
		// What the API server's feature gates decide (both on by default
		// in 1.37).
		p.SetEnabled(true)
		if err := p.ValidateInitialization(); err != nil {
			c.Stop()
			return nil, fmt.Errorf("policy plug-ins: %w", err)
		}
	}
	factory.Start(c.stop)
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for _, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			c.Stop()
			return nil, fmt.Errorf("policy plug-ins: informers not synced within %s", readyTimeout)
		}
	}
	// The mutating dispatcher reads its OpenAPI paths in a goroutine it
	// starts; its first read is at once.
	select {
	case <-c.client.openAPI.read:
	case <-ctx.Done():
		c.Stop()
		return nil, errors.New("policy plug-ins: the mutating dispatcher never read its OpenAPI paths")
	}
	return c, nil
}

// initialisable is what Start sets on each plug-in.
type initialisable interface {
	SetExternalKubeInformerFactory(informers.SharedInformerFactory)
	SetExternalKubeClientSet(kubernetes.Interface)
	SetDynamicClient(dynamic.Interface)
	SetRESTMapper(meta.RESTMapper)
	SetDrainedNotification(<-chan struct{})
	SetUnconditionalAuthorizer(authorizer.UnconditionalAuthorizer)
	SetEnabled(bool)
	ValidateInitialization() error
}

// Client is where the policies and bindings are written (a policy
// compiler's output), to be read by the plug-ins.
func (c *Chain) Client() kubernetes.Interface { return c.client }

// Handles is true for the operations either plug-in handles.
func (c *Chain) Handles(op admission.Operation) bool {
	return c.mutating.Handles(op) || c.validate.Handles(op)
}

// Admit runs the mutating policies, and once more when one asks to be
// reinvoked (an IfNeeded policy after a change), then the validating
// policies: the API server's order. The given object interfaces are
// ignored (the offline backend has none); the chain's own are used.
func (c *Chain) Admit(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if err := c.admitOnce(ctx, a); err != nil {
		return err
	}
	if s := a.GetReinvocationContext(); s.ShouldReinvoke() {
		s.SetIsReinvoke()
		if err := c.admitOnce(ctx, a); err != nil {
			return err
		}
	}
	return c.Validate(ctx, a, nil)
}

// Validate runs the validating policies.
func (c *Chain) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if !c.validate.Handles(a.GetOperation()) {
		return nil
	}
	return c.validate.Validate(ctx, a, c.objects)
}

// converterRetries bound how long a first admission waits for the mutating
// dispatcher to have stored the OpenAPI paths it read (Start waits for the
// read; storing them follows at once, under the dispatcher's lock).
const (
	converterRetries = 100
	converterPause   = 2 * time.Millisecond
)

func (c *Chain) admitOnce(ctx context.Context, a admission.Attributes) error {
	if !c.mutating.Handles(a.GetOperation()) {
		return nil
	}
	for i := 0; ; i++ {
		err := c.mutating.Admit(ctx, a, c.objects)
		// Refused before any patch: nothing was changed, so it can be
		// tried again.
		if !noConverterYet(err) || i == converterRetries {
			return err
		}
		time.Sleep(converterPause)
	}
}

// noConverterYet reports the dispatcher's refusal when it has no type
// converter for the object's group-version.
func noConverterYet(err error) bool {
	return apierrors.IsServiceUnavailable(err) && strings.Contains(err.Error(), "not found. There can be a delay")
}

// Stop stops the plug-ins' informers and goroutines; it returns without
// waiting for the plug-ins' own goroutines, which end once they see the
// stop (the plug-ins offer no way to wait for them).
func (c *Chain) Stop() {
	c.stopOnce.Do(func() { close(c.stop) })
}

// allowAll is the authorizer of a cluster with no one else in it.
type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}
