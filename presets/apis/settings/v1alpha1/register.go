package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of PodPreset.
const GroupName = "settings.k8s.io"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Resource is the plural resource name of PodPreset.
const Resource = "podpresets"

var (
	// SchemeBuilder collects the functions that add this package's types to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds PodPreset and PodPresetList to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// GroupVersionResource returns settings.k8s.io/v1alpha1, Resource=podpresets.
func GroupVersionResource() schema.GroupVersionResource {
	return SchemeGroupVersion.WithResource(Resource)
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &PodPreset{}, &PodPresetList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
