package oracle

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/rule"
)

// TestUnsentIsItsOwnDisagreement: a pod admitted without its creation ever
// reaching the implementation (its registration leaves it out) is one
// disagreement, on R5.4, whatever the pod then looks like, and no variant
// of the model is looked for: the implementation never saw the pod.
func TestUnsentIsItsOwnDisagreement(t *testing.T) {
	presets := []*v1alpha1.PodPreset{preset("db", corev1.EnvVar{Name: "DB_PORT", Value: "6379"})}
	pod := webPod(nil, corev1.Container{Name: "web", Image: "web"})
	left := model.Outcome{Pod: pod.DeepCopy()}
	obs := observe(presets, pod, left, left)
	obs.Unsent = "its registration: R5.4: webhook w is sent the pods of the namespaces team=a only"
	ds, err := Check(context.Background(), nil, obs, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Aspect != Unsent || !slices.Equal(ds[0].Rules, []rule.ID{rule.R5_4}) || ds[0].Detail != obs.Unsent {
		t.Fatalf("disagreements %+v, want one on R5.4 with the registration's finding", ds)
	}
	if hs := Diagnose(nil, obs, ds, false); len(hs) != 0 {
		t.Errorf("diagnosed as %v, want no variant of the model", hs[0].Name)
	}
}
