package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Controller keeps each namespace's policy and binding compiled from the
// presets the namespace holds now: it compiles a namespace again whenever
// one of its presets is created, changed or deleted, and deletes the
// namespace's objects when its last preset goes.
type Controller struct {
	client  kubernetes.Interface
	presets *admission.InformerLister
	opts    ControllerOptions

	queue workqueue.TypedRateLimitingInterface[string] // namespaces to compile again

	mu       sync.Mutex
	compiled map[string]string // namespace → PresetsAnnotation of what was written
}

// ControllerOptions are a Controller's choices.
type ControllerOptions struct {
	Options
	// Decorate, when set, changes the objects before they are written (the
	// harness labels them with its run and narrows the binding to its
	// namespaces).
	Decorate func(Objects)
	// OnError receives what could not be written; the namespace is tried
	// again a moment later.
	OnError func(error)
	// OnWrite, when set, is told each namespace whose objects were written:
	// the presets compiled into them (PresetsAnnotation's value), or ""
	// when the namespace's last preset went and its objects were deleted.
	OnWrite func(namespace, presets string)
}

// retry is how long a namespace whose objects could not be written first
// waits before it is tried again; each further failure doubles it, up to
// maxRetry.
const (
	retry    = 200 * time.Millisecond
	maxRetry = 5 * time.Second
)

// batch is how long after a change of its presets a namespace is
// compiled: the changes of that moment are compiled together (presets
// applied from one file, a namespace's presets deleted at once). Each
// policy written costs the API server a compilation, tens of milliseconds
// of type checking for a few presets (docs/policy.md); the API server
// applies a written policy at its next refresh, up to a second later.
const batch = 10 * time.Millisecond

// NewController returns a controller over every namespace's presets; Run
// starts it.
func NewController(client kubernetes.Interface, dyn dynamic.Interface, o ControllerOptions) *Controller {
	return &Controller{
		client: client, presets: admission.NewInformerLister(dyn), opts: o, compiled: map[string]string{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](retry, maxRetry),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "podpreset-policy"}),
	}
}

// Run watches the presets and writes the policies until ctx is done, and
// returns once everything it started has stopped.
func (c *Controller) Run(ctx context.Context) error {
	inf := c.presets.Informer()
	enqueue := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if m, err := metaOf(obj); err == nil {
			c.queue.AddAfter(m.GetNamespace(), batch)
		}
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	})
	if err != nil {
		return err
	}
	defer func() { _ = inf.RemoveEventHandler(reg) }()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.presets.Run(ctx)
	}()
	defer wg.Wait()
	defer c.queue.ShutDown()
	if !c.presets.WaitForCacheSync(ctx) {
		return ctx.Err()
	}
	wg.Go(func() {
		<-ctx.Done()
		c.queue.ShutDown()
	})
	for {
		ns, shutdown := c.queue.Get()
		if shutdown {
			return nil
		}
		err := c.sync(ctx, ns)
		switch {
		case err == nil:
			c.queue.Forget(ns)
		case ctx.Err() == nil:
			if c.opts.OnError != nil {
				c.opts.OnError(err)
			}
			c.queue.AddRateLimited(ns)
		}
		c.queue.Done(ns)
	}
}

// HasSynced reports whether the controller's cache holds every preset
// there was when it started.
func (c *Controller) HasSynced() bool { return c.presets.Informer().HasSynced() }

// Presets are the namespace's presets as the controller's cache holds them.
func (c *Controller) Presets(namespace string) ([]*v1alpha1.PodPreset, error) {
	return c.presets.List(namespace)
}

// Compiled is what the controller last wrote for namespace: the presets
// and their resourceVersions, as PresetsAnnotation gives them.
func (c *Controller) Compiled(namespace string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compiled[namespace]
}

// sync writes namespace's objects as its presets now are.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	presets, err := c.presets.List(namespace)
	if err != nil {
		return err
	}
	objs, err := Compile(namespace, presets, c.opts.Options)
	if err != nil {
		return &CompileError{Namespace: namespace, Presets: versions(presets), Err: err}
	}
	api := c.client.AdmissionregistrationV1()
	if objs.Policy == nil {
		name, warn := Name(namespace), WarningName(namespace)
		for _, err := range []error{
			api.MutatingAdmissionPolicyBindings().Delete(ctx, name, metav1.DeleteOptions{}),
			api.MutatingAdmissionPolicies().Delete(ctx, name, metav1.DeleteOptions{}),
			api.ValidatingAdmissionPolicyBindings().Delete(ctx, warn, metav1.DeleteOptions{}),
			api.ValidatingAdmissionPolicies().Delete(ctx, warn, metav1.DeleteOptions{}),
		} {
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("unable to delete the policies of namespace %s: %w", namespace, err)
			}
		}
		c.setCompiled(namespace, "")
		return nil
	}
	if c.opts.Decorate != nil {
		c.opts.Decorate(objs)
	}
	// The policies first: a binding to a policy not yet there is ignored.
	err = errors.Join(
		upsert(ctx, api.MutatingAdmissionPolicies(), objs.Policy, func(got, want *admissionregistrationv1.MutatingAdmissionPolicy) {
			got.Labels, got.Annotations, got.Spec = want.Labels, want.Annotations, want.Spec
		}),
		upsert(ctx, api.ValidatingAdmissionPolicies(), objs.Warning, func(got, want *admissionregistrationv1.ValidatingAdmissionPolicy) {
			got.Labels, got.Annotations, got.Spec = want.Labels, want.Annotations, want.Spec
		}),
		upsert(ctx, api.MutatingAdmissionPolicyBindings(), objs.Binding, func(got, want *admissionregistrationv1.MutatingAdmissionPolicyBinding) {
			got.Labels, got.Spec = want.Labels, want.Spec
		}),
		upsert(ctx, api.ValidatingAdmissionPolicyBindings(), objs.WarningBinding, func(got, want *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
			got.Labels, got.Spec = want.Labels, want.Spec
		}),
	)
	if err != nil {
		return fmt.Errorf("unable to write the policies of namespace %s: %w", namespace, err)
	}
	c.setCompiled(namespace, objs.Policy.Annotations[PresetsAnnotation])
	return nil
}

// objectClient is the part of a typed client of one cluster-scoped kind
// that upsert uses.
type objectClient[T metav1.Object] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// upsert creates want, or, when it exists, updates it with what set copies
// from want.
func upsert[T metav1.Object](ctx context.Context, client objectClient[T], want T, set func(got, want T)) error {
	_, err := client.Create(ctx, want, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	got, err := client.Get(ctx, want.GetName(), metav1.GetOptions{})
	if err != nil {
		return err
	}
	set(got, want)
	_, err = client.Update(ctx, got, metav1.UpdateOptions{})
	return err
}

func (c *Controller) setCompiled(namespace, presets string) {
	c.mu.Lock()
	c.compiled[namespace] = presets
	c.mu.Unlock()
	if c.opts.OnWrite != nil {
		c.opts.OnWrite(namespace, presets)
	}
}

// CompileError is a controller's failure to compile a namespace's presets
// (a preset no API server would have stored): it stays until the presets
// change.
type CompileError struct {
	Namespace string
	// Presets are the presets that were tried, as PresetsAnnotation
	// gives them.
	Presets string
	Err     error
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("unable to compile the presets of namespace %s: %v", e.Namespace, e.Err)
}

func (e *CompileError) Unwrap() error { return e.Err }

// CompiledVersion returns the resourceVersion of the named preset in a
// PresetsAnnotation value, and whether it is there.
func CompiledVersion(annotation, name string) (string, bool) {
	for pair := range strings.SplitSeq(annotation, ",") {
		if n, rv, ok := strings.Cut(pair, "="); ok && n == name {
			return rv, true
		}
	}
	return "", false
}

func metaOf(obj any) (metav1.Object, error) {
	if m, ok := obj.(metav1.Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("%T has no metadata", obj)
}
