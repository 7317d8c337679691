package implementation_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/backend/offlinetest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// probes counts the dry-run pod creations made through it.
type probes struct {
	backend.Objects
	n int
}

func (p *probes) Create(ctx context.Context, gvr schema.GroupVersionResource, obj *unstructured.Unstructured, o backend.CreateOptions) (*unstructured.Unstructured, error) {
	if gvr == backend.Pods && o.DryRun {
		p.n++
	}
	return p.Objects.Create(ctx, gvr, obj, o)
}

// TestProbePresetModelled: a preset the model says no probe pod shows (it
// conflicts with another preset for that pod) costs one probe and the
// whole wait, and ends unseen, as ProbePreset's wait would, which probes
// throughout it; one the model says shows is seen at its first probe.
func TestProbePresetModelled(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	const ns = "shop"
	if err := w.CreateNamespace(ctx, ns, w.NamespaceLabels(ns)); err != nil {
		t.Fatal(err)
	}
	preset := func(name string, selector map[string]string, env corev1.EnvVar) {
		t.Helper()
		p := &v1alpha1.PodPreset{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec:       v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{MatchLabels: selector}, Env: []corev1.EnvVar{env}},
		}
		created, err := w.Objects().Create(ctx, v1alpha1.SchemeGroupVersion.WithResource("podpresets"), offlinetest.Unstructured(t, p), backend.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WaitForPreset(ctx, ns, name, created.GetResourceVersion()); err != nil {
			t.Fatal(err)
		}
	}
	preset("db", map[string]string{"app": "web"}, corev1.EnvVar{Name: "HOST", Value: "db"})
	preset("cache", map[string]string{"app": "web"}, corev1.EnvVar{Name: "HOST", Value: "cache"})
	preset("solo", map[string]string{"role": "solo"}, corev1.EnvVar{Name: "SOLO", Value: "1"})
	const wait = 300 * time.Millisecond
	for _, tc := range []struct {
		name, preset string
		wantErr      error
		waited       bool
	}{
		{name: "conflicting", preset: "db", wantErr: implementation.ErrUnseen, waited: true},
		{name: "alone", preset: "solo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counted := &probes{Objects: w.Objects()}
			start := time.Now()
			err := implementation.ProbePresetModelled(ctx, counted, profile.Canonical(), ns, tc.preset, wait, nil)
			took := time.Since(start)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("ProbePresetModelled = %v, want %v", err, tc.wantErr)
			}
			if counted.n != 1 {
				t.Errorf("%d probes, want 1", counted.n)
			}
			if tc.waited && took < wait {
				t.Errorf("it returned after %s, before the wait (%s) ended", took, wait)
			}
		})
	}
}
