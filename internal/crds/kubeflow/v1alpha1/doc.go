// Package v1alpha1 declares the API of Kubeflow's PodDefault
// (kubeflow.org/v1alpha1) as its public source states it
// (components/admission-webhook/pkg/apis/settings/v1alpha1 at commit
// 41ee8e7, the last before the webhook left kubeflow/kubeflow: the fields
// and their json tags), written here so that controller-gen generates the
// CRD its profile installs (make generate), as upstream generated its
// manifests/base/crd.yaml with controller-gen. Nothing else uses these types.
//
// +groupName=kubeflow.org
// +kubebuilder:object:generate=false
package v1alpha1
