package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"presetsim.dev/presetsim/harness/nodes"
)

// Backend names where a World's objects live.
type Backend string

// The backends.
const (
	// Envtest is a real etcd, kube-apiserver, kube-controller-manager and
	// kube-scheduler with simulated nodes; the module is served as a webhook.
	Envtest Backend = "envtest"
	// Offline is an in-memory store; the module is called in-process.
	Offline Backend = "offline"
)

// Backends lists the backends a World can start.
func Backends() []Backend { return []Backend{Envtest, Offline, Cluster, Kind} }

// UnsupportedError says a step cannot be honoured on a backend, and why. A
// step that returns it is reported as unsupported, never as passed.
type UnsupportedError struct {
	Backend Backend
	Reason  string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("unsupported on the %s backend: %s", e.Backend, e.Reason)
}

// IsUnsupported reports whether err is (or wraps) an UnsupportedError, and
// returns it.
func IsUnsupported(err error) (*UnsupportedError, bool) {
	var u *UnsupportedError
	ok := errors.As(err, &u)
	return u, ok
}

// cluster is what scenarios do to a backend. Objects are unstructured, as
// written in the feature file; resources are resolved by mapper.
type cluster interface {
	mapper() meta.RESTMapper
	createNamespace(ctx context.Context, name string, labels map[string]string) error
	labelNamespace(ctx context.Context, name, key, value string) error
	create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, opts createOptions) (*unstructured.Unstructured, error)
	get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error)
	list(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error)
	update(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, warnings *Warnings) (*unstructured.Unstructured, error)
	mergePatch(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, patch []byte) error
	delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) error
	// watch reports changes to the resource in namespace (every namespace
	// when "") until ctx ends or the watch is stopped.
	watch(ctx context.Context, gvr schema.GroupVersionResource, namespace string) (watch.Interface, error)
	// validates reports whether create and update run the API server's
	// validation (schemas, pod validation); when not, a request that
	// succeeded might have been rejected by a real API server.
	validates() bool
	// simulatedNodes returns the node simulator, nil when there is none.
	simulatedNodes() *nodes.Simulator
	// realKubelet reports whether pods run on a real kubelet, whose
	// containers print what they see (the kind backend).
	realKubelet() bool
	// clientset reads the backend's core objects with client-go's typed
	// clients.
	clientset() kubernetes.Interface
}

// createOptions change how create creates an object.
type createOptions struct {
	warnings *Warnings // collects the API server's warnings
	dryRun   bool      // server-side dry run; nothing is stored or recorded
}

// apiCluster is a real API server reached with client-go.
type apiCluster struct {
	client  kubernetes.Interface
	dynamic dynamic.Interface
	rest    meta.RESTMapper
	nodes   *nodes.Simulator
	// realNodes is set when the cluster's nodes are real (kind).
	realNodes bool
	wait      time.Duration
	// namespacedOnly refuses to create anything cluster-scoped but
	// namespaces (an existing cluster: the harness touches nothing else).
	namespacedOnly bool
}

func (c *apiCluster) mapper() meta.RESTMapper { return c.rest }

func (c *apiCluster) validates() bool { return true }

func (c *apiCluster) watch(ctx context.Context, gvr schema.GroupVersionResource, namespace string) (watch.Interface, error) {
	return c.dynamic.Resource(gvr).Namespace(namespace).Watch(ctx, metav1.ListOptions{})
}

func (c *apiCluster) simulatedNodes() *nodes.Simulator { return c.nodes }

func (c *apiCluster) realKubelet() bool { return c.realNodes }

// runsPods reports whether c schedules and starts pods, on simulated nodes
// or real ones.
func runsPods(c cluster) bool { return c.simulatedNodes() != nil || c.realKubelet() }

func (c *apiCluster) clientset() kubernetes.Interface { return c.client }

func (c *apiCluster) createNamespace(ctx context.Context, name string, labels map[string]string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
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
func (c *apiCluster) waitForDefaultAccount(ctx context.Context, namespace string) error {
	ctx, cancel := context.WithTimeout(ctx, c.wait)
	defer cancel()
	accounts := c.client.CoreV1().ServiceAccounts(namespace)
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

func (c *apiCluster) labelNamespace(ctx context.Context, name, key, value string) error {
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value)
	_, err := c.client.CoreV1().Namespaces().Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

func (c *apiCluster) create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, opts createOptions) (*unstructured.Unstructured, error) {
	if c.namespacedOnly && u.GetNamespace() == "" && gvr.Resource != "namespaces" {
		return nil, fmt.Errorf("refusing to create the cluster-scoped %s %q on an existing cluster: the harness creates only namespaced objects in its own namespaces", u.GetKind(), u.GetName())
	}
	if opts.warnings != nil {
		ctx = WithWarnings(ctx, opts.warnings)
	}
	createOpts := metav1.CreateOptions{FieldValidation: "Strict"}
	if opts.dryRun {
		createOpts.DryRun = []string{metav1.DryRunAll}
	}
	return c.dynamic.Resource(gvr).Namespace(u.GetNamespace()).Create(ctx, u, createOpts)
}

func (c *apiCluster) get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	return c.dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c *apiCluster) list(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error) {
	l, err := c.dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

func (c *apiCluster) update(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, warnings *Warnings) (*unstructured.Unstructured, error) {
	if warnings != nil {
		ctx = WithWarnings(ctx, warnings)
	}
	return c.dynamic.Resource(gvr).Namespace(u.GetNamespace()).Update(ctx, u, metav1.UpdateOptions{FieldValidation: "Strict"})
}

func (c *apiCluster) mergePatch(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, patch []byte) error {
	_, err := c.dynamic.Resource(gvr).Namespace(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

func (c *apiCluster) delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) error {
	return c.dynamic.Resource(gvr).Namespace(namespace).Delete(ctx, name, metav1.DeleteOptions{})
}

// Resources the harness reads by name.
var (
	podsResource        = corev1.SchemeGroupVersion.WithResource("pods")
	eventsResource      = corev1.SchemeGroupVersion.WithResource("events")
	replicaSetsResource = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)
