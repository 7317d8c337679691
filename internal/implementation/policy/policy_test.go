package policy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/backend/offlinetest"
	"presetsim.dev/presetsim/internal/implementation/policy"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	presetpolicy "presetsim.dev/presetsim/presets/policy"
)

// TestUncompilablePresetFailsItsWait: a preset the compiler refuses (the
// offline store, unlike an API server, stores it) is never compiled, so
// waiting for it ends with the compiler's error as soon as the controller
// has tried, not when the wait runs out.
func TestUncompilablePresetFailsItsWait(t *testing.T) {
	ctx := context.Background()
	prof, err := profile.Shipped("policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := harness.Start(ctx, harness.Options{Backend: offline.New(), Implementation: policy.New(policy.Options{}), Profile: prof})
	if err != nil {
		t.Fatalf("unable to start the policy implementation offline: %v", err)
	}
	t.Cleanup(func() {
		if err := w.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	c := w.Objects()
	if err := c.CreateNamespace(ctx, "broken", map[string]string{backend.AdmissionLabel: w.RunID}); err != nil {
		t.Fatal(err)
	}
	pp := &v1alpha1.PodPreset{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
		ObjectMeta: metav1.ObjectMeta{Name: "bad-selector", Namespace: "broken"},
		Spec: v1alpha1.PodPresetSpec{
			Selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}},
			Env:      []corev1.EnvVar{{Name: "DB_PORT", Value: "6379"}},
		},
	}
	created, err := c.Create(ctx, v1alpha1.GroupVersionResource(), offlinetest.Unstructured(t, pp), backend.CreateOptions{})
	if err != nil {
		t.Fatalf("the offline store refused the preset: %v", err)
	}
	// Well short of the controller's wait (implementation.CompileWait, 30 s):
	// running into this deadline means the wait did not end at the error.
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = w.WaitForPreset(waitCtx, "broken", "bad-selector", created.GetResourceVersion())
	var compile *presetpolicy.CompileError
	switch {
	case err == nil:
		t.Fatal("the wait for a preset that cannot be compiled succeeded")
	case waitCtx.Err() != nil:
		t.Fatalf("the wait ran out instead of ending at the compile error: %v", err)
	case !errors.As(err, &compile):
		t.Fatalf("want a *policy.CompileError, got %T: %v", err, err)
	case compile.Namespace != "broken":
		t.Errorf("the compile error names namespace %q, want broken", compile.Namespace)
	}
}
