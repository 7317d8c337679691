package apiclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"presetsim.dev/presetsim/harness/backend"
)

// Options configure a Cluster.
type Options struct {
	// Wait bounds waiting for a namespace's default ServiceAccount.
	Wait time.Duration
	// NamespacedOnly refuses to create anything cluster-scoped but
	// namespaces (an existing cluster: the harness touches nothing else).
	NamespacedOnly bool
	// Throttle limits the clients to 200 requests/s (bursts of 400), as a
	// guest on a cluster others use. A cluster the run made for itself is
	// not throttled on the client: its API server's priority and fairness
	// is the limit (at 200/s, presetsim fuzz waited on the client's token
	// bucket, not on the server).
	Throttle bool
}

// Cluster is a real API server; it implements backend.Objects and
// backend.APIServer. Backends embed it and add Stop and their abilities.
type Cluster struct {
	api  *backend.API
	opts Options
}

// Connect makes clients for cfg and reads the API server's version, which
// also proves that it answers. kubeconfig is the same access as a file's
// content, for the processes the run starts and for kubectl.
func Connect(cfg *rest.Config, kubeconfig []byte, opts Options) (*Cluster, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0 // a negative QPS: no client-side rate limiter
	if opts.Throttle {
		cfg.QPS, cfg.Burst = 200, 400
	}
	cfg.WarningHandlerWithContext = backend.ContextWarnings{}
	api := &backend.API{Config: cfg, KubeConfig: kubeconfig}
	var err error
	if api.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	if api.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, err
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	if api.Mapper, err = apiutil.NewDynamicRESTMapper(cfg, httpClient); err != nil {
		return nil, err
	}
	version, err := api.Client.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("unable to reach the API server at %s: %w", cfg.Host, err)
	}
	api.Version = version.GitVersion
	return &Cluster{api: api, opts: opts}, nil
}

// API returns the API server's clients.
func (c *Cluster) API() *backend.API { return c.api }

// Clients returns the API server's client-go clients.
func (c *Cluster) Clients() backend.Clients {
	return backend.Clients{Typed: c.api.Client, Dynamic: c.api.Dynamic}
}

func (c *Cluster) Mapper() meta.RESTMapper { return c.api.Mapper }

// Validates is true: the API server validates every request.
func (c *Cluster) Validates() bool { return true }

func (c *Cluster) Watch(ctx context.Context, gvr schema.GroupVersionResource, namespace string) (watch.Interface, error) {
	return c.api.Dynamic.Resource(gvr).Namespace(namespace).Watch(ctx, metav1.ListOptions{})
}

func (c *Cluster) CreateNamespace(ctx context.Context, name string, labels map[string]string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if _, err := c.api.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("unable to create namespace %s: %w", name, err)
	}
	// With the ServiceAccount admission plug-in on, pods are refused until
	// the serviceaccount controller has made the namespace's default account.
	if err := c.waitForDefaultAccount(ctx, name); err != nil {
		return fmt.Errorf("namespace %s got no default ServiceAccount: %w", name, err)
	}
	return nil
}

// waitForDefaultAccount waits until the namespace's default ServiceAccount
// exists: it watches for it (opened before looking, so that it cannot be
// missed in between) rather than polling.
func (c *Cluster) waitForDefaultAccount(ctx context.Context, namespace string) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Wait)
	defer cancel()
	accounts := c.api.Client.CoreV1().ServiceAccounts(namespace)
	w, err := accounts.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=default"})
	if err != nil {
		return err
	}
	defer w.Stop()
	if _, err := accounts.Get(ctx, "default", metav1.GetOptions{}); err == nil {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return errors.New("the watch of ServiceAccounts ended")
			}
			if ev.Type == watch.Added || ev.Type == watch.Modified {
				return nil
			}
		}
	}
}

func (c *Cluster) LabelNamespace(ctx context.Context, name, key, value string) error {
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value)
	_, err := c.api.Client.CoreV1().Namespaces().Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

func (c *Cluster) Create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, opts backend.CreateOptions) (*unstructured.Unstructured, error) {
	if c.opts.NamespacedOnly && u.GetNamespace() == "" && gvr.Resource != "namespaces" {
		return nil, fmt.Errorf("refusing to create the cluster-scoped %s %q on an existing cluster: the harness creates only namespaced objects in its own namespaces", u.GetKind(), u.GetName())
	}
	if opts.Warnings != nil {
		ctx = backend.WithWarnings(ctx, opts.Warnings)
	}
	createOpts := metav1.CreateOptions{FieldValidation: "Strict"}
	if opts.DryRun {
		createOpts.DryRun = []string{metav1.DryRunAll}
	}
	return c.api.Dynamic.Resource(gvr).Namespace(u.GetNamespace()).Create(ctx, u, createOpts)
}

func (c *Cluster) Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	return c.api.Dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c *Cluster) List(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error) {
	l, err := c.api.Dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

func (c *Cluster) Update(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, warnings *backend.Warnings) (*unstructured.Unstructured, error) {
	if warnings != nil {
		ctx = backend.WithWarnings(ctx, warnings)
	}
	return c.api.Dynamic.Resource(gvr).Namespace(u.GetNamespace()).Update(ctx, u, metav1.UpdateOptions{FieldValidation: "Strict"})
}

// UpdateSubresource updates a subresource of an object
// (backend.Subresources), as kubectl debug updates pods/ephemeralcontainers.
func (c *Cluster) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, subresource string) (*unstructured.Unstructured, error) {
	return c.api.Dynamic.Resource(gvr).Namespace(u.GetNamespace()).Update(ctx, u, metav1.UpdateOptions{FieldValidation: "Strict"}, subresource)
}

func (c *Cluster) MergePatch(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, patch []byte) error {
	_, err := c.api.Dynamic.Resource(gvr).Namespace(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

func (c *Cluster) Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) error {
	return c.api.Dynamic.Resource(gvr).Namespace(namespace).Delete(ctx, name, metav1.DeleteOptions{})
}

// DeleteAll deletes every object of a resource in a namespace with one
// request (a delete collection), with no grace period: a pod bound to a
// node goes at once, not when its kubelet confirms.
func (c *Cluster) DeleteAll(ctx context.Context, gvr schema.GroupVersionResource, namespace string) error {
	if namespace == "" {
		return fmt.Errorf("refusing to delete every %s of the cluster: DeleteAll is for one namespace", gvr.Resource)
	}
	now := int64(0)
	return c.api.Dynamic.Resource(gvr).Namespace(namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &now}, metav1.ListOptions{})
}

// DeleteRunObjects deletes what a run created on a cluster that outlives
// it, found by its label backend.RunLabel=runID: its webhook registrations
// and its namespaces (without waiting for them to go).
func (c *Cluster) DeleteRunObjects(runID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	selector := metav1.ListOptions{LabelSelector: backend.RunLabel + "=" + runID}
	var errs []error
	if err := c.api.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().DeleteCollection(ctx, metav1.DeleteOptions{}, selector); err != nil {
		errs = append(errs, fmt.Errorf("unable to delete the run's webhook registrations: %w", err))
	}
	return errors.Join(append(errs, c.DeleteRunNamespaces(runID))...)
}

// DeleteRunNamespaces deletes the namespaces a run created (labelled
// backend.RunLabel=runID), without waiting for them to go.
func (c *Cluster) DeleteRunNamespaces(runID string) error {
	names, err := c.RunNamespaces(runID)
	if err != nil {
		return err
	}
	return c.DeleteNamespaces(names)
}

// RunNamespaces lists the names of the namespaces a run created.
func (c *Cluster) RunNamespaces(runID string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := c.api.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: backend.RunLabel + "=" + runID})
	if err != nil {
		return nil, fmt.Errorf("unable to list the run's namespaces: %w", err)
	}
	names := make([]string, len(list.Items))
	for i, ns := range list.Items {
		names[i] = ns.Name
	}
	return names, nil
}

// DeleteNamespaces deletes namespaces by name, without waiting for them to
// go.
func (c *Cluster) DeleteNamespaces(names []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	for _, name := range names {
		err := c.api.Client.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
		// Gone, or already being deleted (a released scenario's).
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
