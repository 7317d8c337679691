package scenario

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
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

// recorder is the reference module, noting what the namespace holds
// each time a preset is waited for.
type recorder struct {
	implementation.Implementation
	cluster backend.Cluster
	waits   []string
}

func (r *recorder) Install(ctx context.Context, t implementation.Target) error {
	r.cluster = t.Cluster
	return r.Implementation.Install(ctx, t)
}

func (r *recorder) WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error {
	presets, err := r.cluster.List(ctx, v1alpha1.SchemeGroupVersion.WithResource("podpresets"), namespace)
	if err != nil {
		return err
	}
	maps, err := r.cluster.List(ctx, backend.ConfigMaps, namespace)
	if err != nil {
		return err
	}
	r.waits = append(r.waits, fmt.Sprintf("%s: %d presets, %d configmaps", name, len(presets), len(maps)))
	return r.Implementation.WaitForPreset(ctx, namespace, name, resourceVersion)
}

// TestPresetsInARowAreWaitedForTogether: the presets of a DocString in a
// row are all created before the first is waited for (an implementation
// that compiles them does so once), and any other object only once the
// presets before it are taken up.
func TestPresetsInARowAreWaitedForTogether(t *testing.T) {
	ctx := context.Background()
	ref, err := mutants.Implementation("reference")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Implementation: ref}
	w, err := harness.Start(ctx, harness.Options{Backend: offline.New(), Implementation: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	rec.waits = nil // the harness's own probe
	preset := func(name string) string {
		return fmt.Sprintf(`{apiVersion: settings.k8s.io/v1alpha1, kind: PodPreset, metadata: {name: %s}, spec: {selector: {}, env: [{name: A, value: "1"}]}}`, name)
	}
	objects := strings.Join([]string{preset("a"), preset("b"), `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}`, preset("d")}, "\n---\n")
	if err := New(w).Create(ctx, manifest.Source{File: "test.feature", Line: 1}, objects, ""); err != nil {
		t.Fatal(err)
	}
	want := []string{"a: 2 presets, 0 configmaps", "b: 2 presets, 0 configmaps", "d: 3 presets, 1 configmaps"}
	if !slices.Equal(rec.waits, want) {
		t.Errorf("what the namespace held at each wait:\n%q\nwant\n%q", rec.waits, want)
	}
}
