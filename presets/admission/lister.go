package admission

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// InformerLister is a Lister backed by a shared informer on the PodPreset
// custom resource: admission reads a local cache, never the API server.
type InformerLister struct {
	informer cache.SharedIndexInformer
}

var _ Lister = &InformerLister{}

// NewInformerLister returns a lister over every namespace's PodPresets. Call
// Run, then WaitForCacheSync, before the first List.
func NewInformerLister(client dynamic.Interface) *InformerLister {
	res := client.Resource(v1alpha1.GroupVersionResource())
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return res.List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return res.Watch(ctx, opts)
		},
	}
	// Carry over whether the client can stream lists (fake clients cannot).
	inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, client), &unstructured.Unstructured{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	// Convert once, when an object enters the cache, rather than on each
	// List.
	if err := inf.SetTransform(toPodPreset); err != nil {
		panic(err) // only fails once the informer has started
	}
	return &InformerLister{informer: inf}
}

func toPodPreset(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil // e.g. cache.DeletedFinalStateUnknown
	}
	pp := &v1alpha1.PodPreset{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pp); err != nil {
		return nil, fmt.Errorf("unable to convert PodPreset %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return pp, nil
}

// Informer is the shared PodPreset informer, for other consumers of the
// same watch (e.g. package rollout).
func (l *InformerLister) Informer() cache.SharedIndexInformer { return l.informer }

// Run runs the informer until ctx is done.
func (l *InformerLister) Run(ctx context.Context) { l.informer.RunWithContext(ctx) }

// WaitForCacheSync waits until the initial list is in the cache.
func (l *InformerLister) WaitForCacheSync(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), l.informer.HasSynced)
}

// List implements Lister.
func (l *InformerLister) List(namespace string) ([]*v1alpha1.PodPreset, error) {
	objs, err := l.informer.GetIndexer().ByIndex(cache.NamespaceIndex, namespace)
	if err != nil {
		return nil, err
	}
	out := make([]*v1alpha1.PodPreset, 0, len(objs))
	for _, o := range objs {
		if pp, ok := o.(*v1alpha1.PodPreset); ok {
			out = append(out, pp)
		}
	}
	return out, nil
}
