package implementation

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/presets"
)

// InstallCRD installs the CRD of the profile's presets (its spec.crd, or
// the reference CRD) and waits until it is established, its presets can be
// watched (watchServed) and created at once (untilCreatesProceed). A CRD of
// the same name, left by an earlier run on a cluster that stays, is made
// ours.
func InstallCRD(ctx context.Context, api *backend.API, p *profile.Profile) error {
	kind := p.PresetGVK().Kind
	crd, err := presets.CRD()
	if err != nil {
		return err
	}
	if own, err := p.CRD(); err != nil {
		return err
	} else if own != nil {
		crd = own
	}
	cs, err := apiextensionsclient.NewForConfig(api.Config)
	if err != nil {
		return err
	}
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	_, err = crds.Create(ctx, crd, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var got *apiextensionsv1.CustomResourceDefinition
		if got, err = crds.Get(ctx, crd.Name, metav1.GetOptions{}); err == nil {
			got.Spec = crd.Spec
			_, err = crds.Update(ctx, got, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("unable to install the %s CRD: %w", kind, err)
	}
	var established time.Time
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				established = c.LastTransitionTime.Time
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("the %s CRD was not established: %w", kind, err)
	}
	if err := watchServed(ctx, api, crd); err != nil {
		return fmt.Errorf("the %s CRD is established, but its objects cannot be watched: %w", kind, err)
	}
	return untilCreatesProceed(ctx, established)
}

// createHold is how long after a CRD is established the API server holds
// each create of its objects, for as long again (k8s.io/apiextensions-apiserver
// v0.37.1, customresource_handler.go: so that the other API servers of a
// cluster see the CRD first).
const createHold = 2 * time.Second

// untilCreatesProceed waits until the API server no longer holds creates
// of the CRD's objects: createHold after the Established condition's
// transition, as the API server reads it (to the second, as it is
// stored), and a little more for the clocks' reading. The readiness
// probe's preset, created at once, was held the whole 2 s on envtest
// (2026-11-27), and so was every scenario's preset created in the window;
// now the start waits only the rest of the window, 1 to 2 s after the CRD
// was established, and nothing is held. A CRD established long ago (an
// existing cluster's) costs nothing.
func untilCreatesProceed(ctx context.Context, established time.Time) error {
	left := time.Until(established.Add(createHold + 50*time.Millisecond))
	if left <= 0 {
		return nil
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watchServed waits until the API server accepts a watch of the CRD's
// objects. A new resource's watch cache fills from etcd after its first
// request; until then the API server answers a watch with 429 "storage is
// (re)initializing", Retry-After 1 s, and client-go waits that second
// before it asks again — so an informer started at once (the module's,
// the policy controller's, a webhook's) synced 1.1 s after the CRD was
// established, and 0.1 s once this wait was in place (envtest, 2026-11-27;
// the cache itself was ready about 25 ms after the first watch). Asked
// here without client-go's retries, every 20 ms. A cluster that makes a
// watch wait for the cache instead answers when it is ready.
func watchServed(ctx context.Context, api *backend.API, crd *apiextensionsv1.CustomResourceDefinition) error {
	version := ""
	for _, v := range crd.Spec.Versions {
		if v.Served {
			version = v.Name
			break
		}
	}
	if version == "" {
		return fmt.Errorf("no version of %s is served", crd.Name)
	}
	cfg := rest.CopyConfig(api.Config)
	cfg.GroupVersion = &schema.GroupVersion{Group: crd.Spec.Group, Version: version}
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		watchCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		body, err := client.Get().Resource(crd.Spec.Names.Plural).Param("watch", "true").MaxRetries(0).Stream(watchCtx)
		switch {
		case err == nil:
			return true, body.Close()
		case apierrors.IsTooManyRequests(err):
			return false, nil // the watch cache is filling
		default:
			return false, err
		}
	})
}
