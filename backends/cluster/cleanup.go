package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"presetsim.dev/presetsim/harness/backend"
)

// created is an object the run created, to delete at Stop.
type created struct {
	gvr            schema.GroupVersionResource
	kind, ns, name string
	uid            types.UID
}

func (o created) String() string { return fmt.Sprintf("%s %s/%s", o.kind, o.ns, o.name) }

// ledger records what the run created, in order, and which of it, and
// which namespaces, a Release already deleted.
type ledger struct {
	mu         sync.Mutex
	objects    []created
	released   map[types.UID]bool
	namespaces map[string]bool // released
}

func (l *ledger) add(gvr schema.GroupVersionResource, u *unstructured.Unstructured) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.objects = append(l.objects, created{gvr: gvr, kind: u.GetKind(), ns: u.GetNamespace(), name: u.GetName(), uid: u.GetUID()})
}

// take returns what the run created in the namespaces (all, when nil)
// that no Release took before, and marks it taken.
func (l *ledger) take(namespaces []string) []created {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released == nil {
		l.released, l.namespaces = map[types.UID]bool{}, map[string]bool{}
	}
	for _, ns := range namespaces {
		l.namespaces[ns] = true
	}
	var out []created
	for _, o := range l.objects {
		if !l.released[o.uid] && (namespaces == nil || slices.Contains(namespaces, o.ns)) {
			l.released[o.uid] = true
			out = append(out, o)
		}
	}
	return out
}

// unreleased are those of the namespaces no Release took.
func (l *ledger) unreleased(namespaces []string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, ns := range namespaces {
		if !l.namespaces[ns] {
			out = append(out, ns)
		}
	}
	return out
}

func (l *ledger) list() []created {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.objects)
}

// Create creates, as the API server's Cluster does, and records what it
// created (not dry runs, not namespaces) for Stop to delete.
func (c *running) Create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, opts backend.CreateOptions) (*unstructured.Unstructured, error) {
	got, err := c.Cluster.Create(ctx, gvr, u, opts)
	if err == nil && !opts.DryRun && got.GetNamespace() != "" {
		c.created.add(gvr, got)
	}
	return got, err
}

// cleanupBound bounds Stop's deletion of what the run created.
const cleanupBound = 60 * time.Second

// releases are the deletions Release started, for Stop to wait for.
type releases struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

// Release deletes, in the background, what the run created in a
// scenario's namespaces and then the namespaces (backend.Releaser): the
// clean-up of an ended scenario overlaps the ones still running, and Stop
// only waits for it.
func (c *running) Release(namespaces []string) {
	if len(namespaces) == 0 {
		return
	}
	objects := c.created.take(namespaces)
	c.releases.wg.Add(1)
	go func() {
		defer c.releases.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), cleanupBound)
		defer cancel()
		err := errors.Join(c.deleteAll(ctx, objects, namespaces), c.DeleteNamespaces(namespaces))
		if err != nil {
			c.releases.mu.Lock()
			c.releases.errs = append(c.releases.errs, err)
			c.releases.mu.Unlock()
		}
	}()
}

// cleanUp waits for the releases, deletes, newest first, everything else
// the run created, in the foreground (an owner goes after its dependents:
// a ReplicaSet after its pods) but for kinds that own nothing
// (propagation), pods at once (grace period 0), and any pod
// left in the run's namespaces (pods a controller made for an owner a
// scenario deleted), then watches until everything the run created is
// gone, up to cleanupBound. The run's namespaces are deleted after this,
// so a cluster whose namespaces are never emptied (no namespace
// controller) keeps nothing of the run but the empty namespaces. What it
// could not delete is the error, object by object.
func (c *running) cleanUp(namespaces []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupBound)
	defer cancel()
	c.releases.wg.Wait()
	errs := slices.Clone(c.releases.errs)
	// The released namespaces' pods went with their release.
	errs = append(errs, c.deleteAll(ctx, c.created.take(nil), c.created.unreleased(namespaces)))
	if err := c.waitGone(ctx, c.created.list(), namespaces); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// deleteAll deletes the objects, newest first, and the pods of the
// namespaces that are not among them, without waiting for them to go.
func (c *running) deleteAll(ctx context.Context, objects []created, namespaces []string) error {
	dyn := c.API().Dynamic
	objects = slices.Clone(objects)
	slices.Reverse(objects)
	listed := map[types.UID]bool{}
	for _, o := range objects {
		listed[o.uid] = true
	}
	for _, ns := range namespaces {
		pods, err := dyn.Resource(backend.Pods).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("unable to list the pods of namespace %s: %w", ns, err)
		}
		for _, p := range pods.Items {
			if !listed[p.GetUID()] {
				listed[p.GetUID()] = true
				objects = append(objects, created{gvr: backend.Pods, kind: "Pod", ns: ns, name: p.GetName(), uid: p.GetUID()})
			}
		}
	}
	var errs []error
	now := int64(0)
	for _, o := range objects {
		propagation := propagation(o)
		opts := metav1.DeleteOptions{PropagationPolicy: &propagation, Preconditions: &metav1.Preconditions{UID: &o.uid}}
		if o.gvr == backend.Pods {
			// A test pod has nothing to drain, and one bound to a node no
			// kubelet runs (a mirror pod's) would never finish a graceful
			// deletion.
			opts.GracePeriodSeconds = &now
		}
		err := dyn.Resource(o.gvr).Namespace(o.ns).Delete(ctx, o.name, opts)
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("%s: %w", o, err))
		}
	}
	return errors.Join(errs...)
}

// leaves are the kinds whose objects own nothing a run makes: deleted in
// the background, they are gone at once. (A pod's ResourceClaims made from
// its templates, which no feature uses, would go with the garbage
// collector or the namespace.) The PodPreset kind is one whatever its
// group (a profile's implementation may serve it under another).
var leaves = map[string]bool{"Pod": true, "PodPreset": true, "ConfigMap": true, "Secret": true, "Event": true}

// propagation is how an object is deleted: in the foreground (it is gone
// once its dependents are: a ReplicaSet after its pods), but for leaves,
// in the background. A foreground deletion waits for the garbage
// collector even when nothing depends on the object, and the collector
// may not watch a custom resource for its first 30 s: a new cluster's
// first run waited 23.5 s for its PodPresets (2026-11-27).
func propagation(o created) metav1.DeletionPropagation {
	if leaves[o.kind] {
		return metav1.DeletePropagationBackground
	}
	return metav1.DeletePropagationForeground
}

// waitGone waits until none of the objects is left: per resource, a list
// of what is still there, then a watch from that list for their deletion
// (listed again if the watch ends first); an identity that may not list a
// resource cluster-wide lists it per namespace, every 250 ms.
func (c *running) waitGone(ctx context.Context, objects []created, namespaces []string) error {
	byResource := map[schema.GroupVersionResource][]created{}
	for _, o := range objects {
		byResource[o.gvr] = append(byResource[o.gvr], o)
	}
	var left []string
	for gvr, objs := range byResource {
		left = append(left, c.waitResourceGone(ctx, gvr, objs, namespaces)...)
	}
	if len(left) == 0 {
		return nil
	}
	slices.Sort(left)
	if len(left) > 20 {
		left = append(left[:20], fmt.Sprintf("and %d more", len(left)-20))
	}
	return fmt.Errorf("not deleted within %s: %s", cleanupBound, strings.Join(left, "; "))
}

// waitResourceGone waits for the objects of one resource, and says which
// are left when ctx ends.
func (c *running) waitResourceGone(ctx context.Context, gvr schema.GroupVersionResource, objs []created, namespaces []string) []string {
	dyn := c.API().Dynamic
	var left []string
	for {
		there, rv, err := remaining(ctx, dyn, gvr, namespaces)
		if err != nil {
			if !pause(ctx) {
				return []string{fmt.Sprintf("%s (%v)", gvr.Resource, err)}
			}
			continue
		}
		left = left[:0]
		pending := map[types.UID]bool{}
		for _, o := range objs {
			if got, ok := there[o.uid]; ok {
				pending[o.uid] = true
				left = append(left, describe(o, got))
			}
		}
		if len(pending) == 0 {
			return nil
		}
		if rv == "" { // listed per namespace: poll
			if !pause(ctx) {
				return left
			}
			continue
		}
		w, err := dyn.Resource(gvr).Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
		if err != nil { // an identity that may list but not watch: poll
			if !pause(ctx) {
				return left
			}
			continue
		}
		for ev := range w.ResultChan() {
			if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type == watch.Deleted {
				delete(pending, u.GetUID())
			}
			if len(pending) == 0 {
				break
			}
		}
		w.Stop()
		if len(pending) == 0 {
			return nil
		}
		if ctx.Err() != nil {
			return left
		}
	}
}

// pause waits 250 ms, and reports false instead when ctx ends first.
func pause(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(250 * time.Millisecond):
		return true
	}
}

// remaining lists the objects of a resource that are still there, by UID,
// and the list's resourceVersion to watch from: with one list of every
// namespace, or, for an identity that may not list them cluster-wide, one
// list per run namespace (and no resourceVersion: such an identity polls).
func remaining(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespaces []string) (map[types.UID]*unstructured.Unstructured, string, error) {
	there := map[types.UID]*unstructured.Unstructured{}
	add := func(l *unstructured.UnstructuredList) {
		for i := range l.Items {
			there[l.Items[i].GetUID()] = &l.Items[i]
		}
	}
	list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err == nil {
		add(list)
		return there, list.GetResourceVersion(), nil
	}
	if !apierrors.IsForbidden(err) {
		return nil, "", err
	}
	for _, ns := range namespaces {
		list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, "", err
		}
		add(list)
	}
	return there, "", nil
}

// describe says what holds an object that is still there.
func describe(o created, got *unstructured.Unstructured) string {
	switch {
	case got.GetDeletionTimestamp() == nil:
		return o.String() + " (not being deleted)"
	case len(got.GetFinalizers()) > 0:
		return fmt.Sprintf("%s (held by finalizers %s)", o, strings.Join(got.GetFinalizers(), ", "))
	default:
		return o.String() + " (being deleted)"
	}
}
