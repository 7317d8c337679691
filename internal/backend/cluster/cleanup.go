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
	"k8s.io/apimachinery/pkg/util/wait"
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

// ledger records what the run created, in order.
type ledger struct {
	mu      sync.Mutex
	objects []created
}

func (l *ledger) add(gvr schema.GroupVersionResource, u *unstructured.Unstructured) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.objects = append(l.objects, created{gvr: gvr, kind: u.GetKind(), ns: u.GetNamespace(), name: u.GetName(), uid: u.GetUID()})
}

func (l *ledger) list() []created {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.objects)
}

// Create creates, as the API server's Cluster does, and records what it
// created (not dry runs, not namespaces) for Stop to delete.
func (c *Cluster) Create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, opts backend.CreateOptions) (*unstructured.Unstructured, error) {
	got, err := c.Cluster.Create(ctx, gvr, u, opts)
	if err == nil && !opts.DryRun && got.GetNamespace() != "" {
		c.created.add(gvr, got)
	}
	return got, err
}

// cleanupBound bounds Stop's deletion of what the run created.
const cleanupBound = 60 * time.Second

// cleanUp deletes, newest first, every object the run created, in the
// foreground (an owner goes after its dependents: a ReplicaSet after its
// pods), pods at once (grace period 0), and any pod left in the run's
// namespaces (pods a controller made for an owner a scenario deleted),
// then waits until all are gone, up to cleanupBound. The run's namespaces are deleted after this, so a cluster
// whose namespaces are never emptied (no namespace controller) keeps
// nothing of the run but the empty namespaces. What it could not delete is
// the error, object by object.
func (c *Cluster) cleanUp(namespaces []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupBound)
	defer cancel()
	dyn := c.API().Dynamic
	foreground := metav1.DeletePropagationForeground
	objects := c.created.list()
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
		opts := metav1.DeleteOptions{PropagationPolicy: &foreground, Preconditions: &metav1.Preconditions{UID: &o.uid}}
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
	// Wait with one list per resource, not one get per object: a suite
	// leaves hundreds of objects, and the client's rate limit is shared.
	byResource := map[schema.GroupVersionResource][]created{}
	for _, o := range objects {
		byResource[o.gvr] = append(byResource[o.gvr], o)
	}
	var left []string
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for gvr, objs := range byResource {
			there, err := remaining(ctx, dyn, gvr, namespaces)
			if err != nil {
				left = append(left, fmt.Sprintf("%s (%v)", gvr.Resource, err))
				continue
			}
			for _, o := range objs {
				if got, ok := there[o.uid]; ok {
					left = append(left, describe(o, got))
				}
			}
		}
		return len(left) == 0, nil
	})
	if err != nil {
		slices.Sort(left)
		if len(left) > 20 {
			left = append(left[:20], fmt.Sprintf("and %d more", len(left)-20))
		}
		errs = append(errs, fmt.Errorf("not deleted within %s: %s", cleanupBound, strings.Join(left, "; ")))
	}
	return errors.Join(errs...)
}

// remaining lists the objects of a resource that are still there, by UID:
// with one list of every namespace, or, for an identity that may not list
// them cluster-wide, one list per run namespace.
func remaining(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespaces []string) (map[types.UID]*unstructured.Unstructured, error) {
	there := map[types.UID]*unstructured.Unstructured{}
	add := func(l *unstructured.UnstructuredList) {
		for i := range l.Items {
			there[l.Items[i].GetUID()] = &l.Items[i]
		}
	}
	list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err == nil {
		add(list)
		return there, nil
	}
	if !apierrors.IsForbidden(err) {
		return nil, err
	}
	for _, ns := range namespaces {
		list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		add(list)
	}
	return there, nil
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
