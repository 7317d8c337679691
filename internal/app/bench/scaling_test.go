package bench

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// TestApplyInputs: the manifests apply's scaling runs read are valid, and
// hold what their figures are per: pods, or a preset's items.
func TestApplyInputs(t *testing.T) {
	tests := []struct {
		name           string
		content        string
		presets, pods  int
		itemsOfPresets int
	}{
		{name: "generated manifests", content: generatedManifests(50), presets: 10, pods: 50, itemsOfPresets: 10},
		{name: "a large preset", content: largePreset(300), presets: 1, pods: 1, itemsOfPresets: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Decode(manifest.Source{File: tt.name, Line: 1}, tt.content, manifest.Scheme())
			if err != nil {
				t.Fatal(err)
			}
			presets, pods, items := 0, 0, 0
			for _, o := range objs {
				switch obj := o.Object.(type) {
				case *v1alpha1.PodPreset:
					presets++
					items += len(obj.Spec.Env)
				case *corev1.Pod:
					pods++
				}
			}
			if presets != tt.presets || pods != tt.pods || items != tt.itemsOfPresets {
				t.Errorf("%d presets of %d env vars and %d pods, want %d, %d and %d", presets, items, pods, tt.presets, tt.itemsOfPresets, tt.pods)
			}
		})
	}
}
