package harness_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/suitetest"
)

// TestNamespacePool: on an API server, namespaces of the logical
// namespace "default" are made ahead — labelled as a scenario's, with their
// default ServiceAccount, each handed out once — and other logical
// namespaces are not; offline there is nothing to make ahead.
func TestNamespacePool(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: envtest.New(envtest.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	api := suitetest.API(t, w)
	seen := map[string]bool{}
	for range 6 { // more than the pool holds: it is filled again
		var name string
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			var ok bool
			name, ok = w.PooledNamespace("default")
			return ok, nil
		})
		if err != nil {
			t.Fatalf("no namespace made ahead: %v", err)
		}
		if seen[name] {
			t.Fatalf("namespace %s handed out twice", name)
		}
		seen[name] = true
		ns, err := api.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := w.NamespaceLabels("default"); !maps.Equal(ns.Labels, mergeLabels(want, ns.Labels)) {
			t.Errorf("namespace %s has labels %v, want %v", name, ns.Labels, want)
		}
		if _, err := api.Client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{}); err != nil {
			t.Errorf("namespace %s was handed out before its default ServiceAccount: %v", name, err)
		}
	}
	if name, ok := w.PooledNamespace("shop"); ok {
		t.Errorf("namespace %s made ahead for logical namespace shop", name)
	}

	off, err := harness.Start(ctx, harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer off.Stop()
	time.Sleep(100 * time.Millisecond)
	if name, ok := off.PooledNamespace("default"); ok {
		t.Errorf("namespace %s made ahead offline", name)
	}
}

// mergeLabels is want with the labels the API server adds
// (kubernetes.io/metadata.name) taken from got.
func mergeLabels(want, got map[string]string) map[string]string {
	out := maps.Clone(want)
	out["kubernetes.io/metadata.name"] = got["kubernetes.io/metadata.name"]
	return out
}
