package implementation

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/presets"
)

// InstallCRD installs the CRD of the profile's presets (its spec.crd, or
// the reference CRD) and waits until it is established. A CRD of the same
// name, left by an earlier run on a cluster that stays, is made ours.
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
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("the %s CRD was not established: %w", kind, err)
	}
	return nil
}
