// Package v1alpha1 declares the API of redhat-cop/podpreset-webhook's
// PodPreset (redhatcop.redhat.io/v1alpha1) as its public source states it
// (api/v1alpha1 at commit 4bf4993: the fields, their kubebuilder markers, a
// status subresource with conditions), written here so that controller-gen
// generates the CRD its profile installs (make generate). Its module pins
// the k8s.io/api that commit built with (v0.19.2), so the CRD is the one it
// shipped (config/crd/bases): the same properties, types, formats, required
// fields and list types, checked field by field; only descriptions may
// differ. Nothing else uses these types.
//
// +groupName=redhatcop.redhat.io
// +kubebuilder:object:generate=false
package v1alpha1
