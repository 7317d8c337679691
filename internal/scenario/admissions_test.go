package scenario

import (
	"context"
	"testing"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/backend/offline"
	"presetsim.dev/presetsim/internal/manifest"
)

// TestAdmissions: a pod a step creates is recorded with the presets its
// namespace has at that moment, as submitted, ${rv:…} expanded — in the
// pod created (the R3.8 scenario's own annotation once went through as
// the literal text) as in the record; a deleted preset is not an input of
// the pods created after it.
func TestAdmissions(t *testing.T) {
	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	s := New(w)
	src := manifest.Source{File: "test.feature", Line: 1}
	preset := `{apiVersion: settings.k8s.io/v1alpha1, kind: PodPreset, metadata: {name: again}, spec: {selector: {matchLabels: {role: web}}, env: [{name: A, value: "1"}]}}`
	if err := s.Create(ctx, src, preset, "PodPreset"); err != nil {
		t.Fatal(err)
	}
	pod := `{apiVersion: v1, kind: Pod, metadata: {name: website, labels: {role: web}, annotations: {podpreset.admission.kubernetes.io/podpreset-again: "${rv:again}"}}, spec: {containers: [{name: app, image: nginx}]}}`
	if err := s.Create(ctx, src, pod, "Pod"); err != nil {
		t.Fatal(err)
	}
	list := s.Admissions()
	if len(list) != 1 {
		t.Fatalf("%d admissions recorded, want 1", len(list))
	}
	a := list[0]
	if len(a.Presets) != 1 || a.Presets[0].Name != "again" || a.Presets[0].ResourceVersion == "" {
		t.Fatalf("the admission's presets are %+v, want again with its resourceVersion", a.Presets)
	}
	rv := a.Presets[0].ResourceVersion
	if got := a.Pod.Annotations["podpreset.admission.kubernetes.io/podpreset-again"]; got != rv {
		t.Errorf("recorded pod's annotation %q, want the preset's resourceVersion %q", got, rv)
	}
	submitted, ok := s.submittedObject("Pod", "default", "website")
	if !ok || submitted.GetAnnotations()["podpreset.admission.kubernetes.io/podpreset-again"] != rv {
		t.Errorf("the pod was submitted with annotations %v, want ${rv:again} expanded to %q", submitted.GetAnnotations(), rv)
	}
	if a.Returned == nil || a.Err != nil {
		t.Errorf("the admission's outcome is %v, %v; want the admitted pod", a.Returned, a.Err)
	}
	physical, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	s.forgetPreset(physical, "again")
	if err := s.Create(ctx, src, `{apiVersion: v1, kind: Pod, metadata: {name: later}, spec: {containers: [{name: app, image: nginx}]}}`, "Pod"); err != nil {
		t.Fatal(err)
	}
	if later := s.Admissions()[1]; len(later.Presets) != 0 {
		t.Errorf("a pod created after its preset was deleted is recorded with presets %+v", later.Presets)
	}
}
