package module

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"

	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// presetWaiter returns the InProcess.WaitForPreset of a module whose presets
// are in informer: it waits until the informer's cache holds the preset
// namespace/name at resourceVersion or later, so that a pod the scenario
// creates next is admitted with it. This is the harness's need, not the
// reference's: an API server never waits for its webhook's cache.
func presetWaiter(informer cache.SharedIndexInformer) func(ctx context.Context, namespace, name, resourceVersion string) error {
	return func(ctx context.Context, namespace, name, resourceVersion string) error {
		key := namespace + "/" + name
		err := wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, func(context.Context) (bool, error) {
			o, ok, err := informer.GetIndexer().GetByKey(key)
			if err != nil || !ok {
				return false, err
			}
			pp, ok := o.(*v1alpha1.PodPreset)
			return ok && implementation.NotOlder(pp.ResourceVersion, resourceVersion), nil
		})
		if err != nil {
			return fmt.Errorf("PodPreset %s at resourceVersion %s not seen by the admission cache: %w", key, resourceVersion, err)
		}
		return nil
	}
}
