// Package installed is the implementation under test when it is already
// installed on the cluster (its CRD and webhook, by its own manifests): the
// harness installs nothing, checks that the cluster serves the profile's
// preset kind, and knows a preset is in effect by probing
// (implementation.ProbePreset).
package installed

import (
	"context"
	"fmt"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
)

// Installed is an implementation installed on the cluster.
type Installed struct {
	cluster backend.Objects
	profile *profile.Profile
	host    string
}

// New returns the implementation installed on the cluster.
func New() *Installed { return &Installed{} }

// Name says where it is installed, once Install has run.
func (i *Installed) Name() string {
	if i.host == "" {
		return "installed on the cluster"
	}
	return "installed in " + i.host
}

// CRD is OwnCRD: the implementation brought its own.
func (i *Installed) CRD() implementation.CRDSource { return implementation.OwnCRD }

// Install checks that the cluster serves the profile's preset kind.
func (i *Installed) Install(_ context.Context, t implementation.Target) error {
	api := backend.APIOf(t.Cluster)
	if api == nil {
		return fmt.Errorf("the %s backend has no API server an implementation could be installed on", t.Backend)
	}
	i.cluster, i.profile, i.host = t.Cluster, t.Profile, api.Config.Host
	gvk := t.Profile.PresetGVK()
	fmt.Fprintf(t.Progress, "checking that %s is served ...\n", gvk.Kind)
	gv := gvk.GroupVersion().String()
	resources, err := api.Client.Discovery().ServerResourcesForGroupVersion(gv)
	if err != nil {
		return fmt.Errorf("the cluster does not serve %s: install the implementation (its CRD and webhook) first: %w", gv, err)
	}
	for _, r := range resources.APIResources {
		if r.Kind == gvk.Kind {
			return nil
		}
	}
	return fmt.Errorf("the cluster serves %s but not its kind %s: install the implementation first", gv, gvk.Kind)
}

// WaitForPreset probes the installed webhook with dry-run pods.
func (i *Installed) WaitForPreset(ctx context.Context, namespace, name, _ string) error {
	return implementation.ProbePreset(ctx, i.cluster, i.profile, namespace, name, "", 0)
}

// Stop does nothing: the implementation stays installed.
func (i *Installed) Stop() error { return nil }
