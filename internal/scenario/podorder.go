package scenario

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"

	"presetsim.dev/presetsim/harness/backend"
)

// podOrder records the names of a scenario's pods in the order the API
// server created them, per physical namespace, for clusters whose nodes are
// real (the node simulator records its own). A watch is opened on every
// namespace right after the namespace is created, before any pod can exist
// in it, and its ADDED events come in the order of creation.
type podOrder struct {
	mu      sync.Mutex
	names   map[string][]string
	watches []watch.Interface
}

// watchNamespace starts recording the pods of a new namespace.
func (o *podOrder) watchNamespace(c backend.Objects, ns string) error {
	w, err := c.Watch(context.Background(), backend.Pods, ns) // Stop ends it
	if err != nil {
		return err
	}
	o.mu.Lock()
	if o.names == nil {
		o.names = map[string][]string{}
	}
	o.watches = append(o.watches, w)
	o.mu.Unlock()
	go func() {
		for ev := range w.ResultChan() {
			if ev.Type != watch.Added {
				continue
			}
			if m, err := meta.Accessor(ev.Object); err == nil {
				o.mu.Lock()
				o.names[ns] = append(o.names[ns], m.GetName())
				o.mu.Unlock()
			}
		}
	}()
	return nil
}

// order returns the pods of ns created so far, oldest first.
func (o *podOrder) order(ns string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.names[ns]...)
}

// stop ends every watch.
func (o *podOrder) stop() {
	o.mu.Lock()
	watches := o.watches
	o.watches = nil
	o.mu.Unlock()
	for _, w := range watches {
		w.Stop()
	}
}
