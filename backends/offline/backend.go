package offline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Name is the backend's registered name.
const Name = "offline"

// Backend keeps a run's objects in memory.
type Backend struct{}

// New returns the offline backend.
func New() *Backend { return &Backend{} }

// Registration registers the backend; it has no options.
func Registration() backend.Registration {
	return backend.Registration{
		Name:    Name,
		Summary: "in memory, no API server",
		Flags: func(*pflag.FlagSet) func() (backend.Backend, error) {
			return func() (backend.Backend, error) { return New(), nil }
		},
	}
}

// Name is "offline".
func (b *Backend) Name() string { return Name }

// Waits are shorter than an API server's: everything happens in-process
// (events come from an in-process broadcaster in well under a
// millisecond), so waits are bounded by 5s and something that should not
// happen is watched for 200ms.
func (b *Backend) Waits() (wait, settle time.Duration) {
	return 5 * time.Second, 200 * time.Millisecond
}

// Start makes an empty store with the namespace default and its
// "kubernetes" Service.
func (b *Backend) Start(ctx context.Context, run backend.Run) (backend.Cluster, error) {
	if gvk := run.Profile.PresetGVK(); gvk != v1alpha1.SchemeGroupVersion.WithKind("PodPreset") {
		return nil, fmt.Errorf("the offline backend stores only the canonical PodPreset; profile %s uses %s", run.Profile.Metadata.Name, gvk)
	}
	c := newCluster(run.Scheme)
	if err := c.addMasterService(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Admit makes the cluster call plugin for the pods created in the
// namespaces the options select (backend.InProcessAdmission).
func (c *Cluster) Admit(plugin admission.MutationInterface, opts backend.AdmitOptions) error {
	if plugin == nil {
		return errors.New("offline backend: no admission plug-in")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.plugin, c.selects, c.unsubscribed = plugin, nil, opts.Unsubscribed
	if opts.Namespaces != nil {
		s, err := metav1.LabelSelectorAsSelector(opts.Namespaces)
		if err != nil {
			return fmt.Errorf("offline backend: the namespace selector: %w", err)
		}
		c.selects = s
	}
	return nil
}

// Stop ends every watch of the cluster (their goroutines end with them);
// the store goes with the process's memory.
func (c *Cluster) Stop() error {
	c.watches.stop()
	return nil
}
