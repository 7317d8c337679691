// Package v1alpha1 declares the API of Kubeflow's PodDefault
// (kubeflow.org/v1alpha1) as its public source states it
// (components/admission-webhook/pkg/apis/settings/v1alpha1 at commit
// 41ee8e7, the last before the webhook left kubeflow/kubeflow: the fields
// and their json tags), written here so that controller-gen generates the
// CRD its profile installs (make generate), as upstream generated its
// manifests/base/crd.yaml with controller-gen (maxDescLen=0). Its module pins
// the k8s.io/api of the commit that last generated that file (v0.23.0), so
// the CRD is the one 41ee8e7 shipped: the same properties, types, formats,
// required fields and list types, checked field by field, but for a default
// of "" on a gRPC probe's service, which today's controller-gen writes from
// k8s.io/api's markers. Nothing else uses these types.
//
// +groupName=kubeflow.org
// +kubebuilder:object:generate=false
package v1alpha1
