package harness

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// isPreset reports whether a kind is the canonical PodPreset.
func isPreset(gvk schema.GroupVersionKind) bool {
	return gvk.GroupKind() == v1alpha1.SchemeGroupVersion.WithKind("PodPreset").GroupKind()
}

// presetObject translates a canonical PodPreset into the implementation's
// object (World.Profile) and returns the resource it is created as.
func (w *World) presetObject(canonical *unstructured.Unstructured) (*unstructured.Unstructured, schema.GroupVersionResource, error) {
	impl, err := w.Profile.Preset(canonical)
	if err != nil {
		return nil, schema.GroupVersionResource{}, err
	}
	gvk := w.Profile.PresetGVK()
	mapping, err := w.cluster.mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, schema.GroupVersionResource{}, fmt.Errorf("the implementation's preset kind %s is not served (profile %s): %w", gvk, w.Profile.Metadata.Name, err)
	}
	return impl, mapping.Resource, nil
}

// presetResource is the resource of the implementation's presets.
func (w *World) presetResource() (schema.GroupVersionResource, error) {
	gvk := w.Profile.PresetGVK()
	mapping, err := w.cluster.mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return mapping.Resource, nil
}

// translatePodAnnotations rewrites a pod's canonical annotation keys (the
// exclude annotation, podpreset-<name>) into the implementation's.
func (w *World) translatePodAnnotations(u *unstructured.Unstructured) {
	if a := u.GetAnnotations(); len(a) > 0 {
		u.SetAnnotations(w.Profile.Annotations(a))
	}
}
