// Package installed is the implementation under test when it is already
// installed on the cluster (its CRD and webhook, by its own manifests): the
// harness installs nothing, checks that the cluster serves the profile's
// preset kind, and knows a preset is in effect by probing
// (implementation.ProbePresetExpected), as long as the model says the probe
// must show it.
package installed

import (
	"context"
	"fmt"
	"slices"
	"time"

	"presetsim.dev/presetsim/rule"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
)

// Installed is an implementation installed on the cluster.
type Installed struct {
	cluster backend.Objects
	profile *profile.Profile
	wait    time.Duration
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
	i.cluster, i.profile, i.wait, i.host = t.Cluster, t.Profile, t.Wait, api.Config.Host
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

// WaitForPreset probes the installed implementation with dry-run pods
// until one that the preset selects comes back with it — at
// resourceVersion or later, unless the profile declares that the applied
// annotation holds something else (R3.7). How long that takes is the
// implementation's business (a policy compiled by a controller in the
// cluster takes seconds on a loaded one), so the probe waits up to
// probeWait (the run's wait when shorter) when the model, with the
// profile's options, says the probe pod gets the preset; when it says not
// (a conflict with another preset for that pod), there is nothing to wait
// for. A preset that never shows is not an error here: the scenario's own
// checks say what the implementation did with it, credited to the rules
// they check. An implementation whose profile says probe: compiled
// (presetsim's policies) says what it applies, conflicting presets too
// (implementation.ProbeCompiled); not seeing the preset is then an error.
func (i *Installed) WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error {
	if i.profile.Spec.Probe == profile.ProbeCompiled {
		return implementation.ProbeCompiled(ctx, i.cluster, namespace, name, resourceVersion, i.wait, i.profile.Claims(profile.Warnings))
	}
	for _, d := range i.profile.Differences() {
		if slices.Contains(d.Rules, rule.R3_7) {
			resourceVersion = ""
		}
	}
	shows := func(probe *corev1.Pod) bool {
		ok, err := implementation.ModelShows(ctx, i.cluster, i.profile, namespace, name, probe)
		return err == nil && ok
	}
	err := implementation.ProbePresetExpected(ctx, i.cluster, i.profile, namespace, name, resourceVersion, min(i.wait, probeWait), shows)
	if ctx.Err() != nil {
		return err
	}
	return nil
}

// probeWait bounds WaitForPreset: long enough for a controller in a busy
// cluster (seconds, measured on kind), short enough that an implementation
// that never applies a preset fails its scenarios in seconds, not minutes.
const probeWait = 10 * time.Second

// Stop does nothing: the implementation stays installed.
func (i *Installed) Stop() error { return nil }
