package module

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/client-go/tools/cache"

	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// presetWaiter returns the InProcess.WaitForPreset of a module whose presets
// are in informer: it waits until the informer's cache holds the preset
// namespace/name at resourceVersion or later, so that a pod the scenario
// creates next is admitted with it. This is the harness's need, not the
// reference's: an API server never waits for its webhook's cache.
//
// It wakes on the informer's own notifications (which come after its cache
// is updated), not on a poll, so that it returns as soon as the preset is
// there.
func presetWaiter(informer cache.SharedIndexInformer) (func(ctx context.Context, namespace, name, resourceVersion string) error, error) {
	var c changes
	c.next = make(chan struct{})
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.signal() },
		UpdateFunc: func(any, any) { c.signal() },
	}); err != nil {
		return nil, fmt.Errorf("unable to watch the admission cache: %w", err)
	}
	return func(ctx context.Context, namespace, name, resourceVersion string) error {
		key := namespace + "/" + name
		for {
			changed := c.wait()
			o, ok, err := informer.GetIndexer().GetByKey(key)
			if err != nil {
				return fmt.Errorf("PodPreset %s: unable to read the admission cache: %w", key, err)
			}
			if pp, isPreset := o.(*v1alpha1.PodPreset); ok && isPreset && implementation.NotOlder(pp.ResourceVersion, resourceVersion) {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("PodPreset %s at resourceVersion %s not seen by the admission cache: %w", key, resourceVersion, context.Cause(ctx))
			case <-changed:
			}
		}
	}, nil
}

// changes tells waiters that the informer's cache changed: the channel
// that wait returns is closed at the next change.
type changes struct {
	mu   sync.Mutex
	next chan struct{}
}

func (c *changes) wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.next
}

func (c *changes) signal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.next)
	c.next = make(chan struct{})
}
