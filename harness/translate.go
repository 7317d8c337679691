package harness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// PresetObject translates a canonical PodPreset into the implementation's
// object (World.Profile) and returns the resource it is created as.
func (w *World) PresetObject(canonical *unstructured.Unstructured) (*unstructured.Unstructured, schema.GroupVersionResource, error) {
	impl, err := w.Profile.Preset(canonical)
	if err != nil {
		return nil, schema.GroupVersionResource{}, err
	}
	gvk := w.Profile.PresetGVK()
	mapping, err := w.cluster.Mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, schema.GroupVersionResource{}, fmt.Errorf("the implementation's preset kind %s is not served (profile %s): %w", gvk, w.Profile.Metadata.Name, err)
	}
	return impl, mapping.Resource, nil
}

// PresetKind is the kind of the implementation's preset, as its profile
// names it ("PodPreset", "PodDefault"), for messages.
func (w *World) PresetKind() string {
	if w.Profile == nil {
		return "PodPreset"
	}
	return w.Profile.PresetGVK().Kind
}
