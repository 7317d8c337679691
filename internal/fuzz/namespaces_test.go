package fuzz

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/backend/offline/offlinetest"
	"presetsim.dev/presetsim/harness/scenario"
)

// TestNamespacePool: a namespace given back is emptied and handed out
// again only after its quarantine; close deletes every namespace the pool
// made.
func TestNamespacePool(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	pool, err := newNamespaces(w)
	if err != nil {
		t.Fatal(err)
	}
	first, err := pool.take(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	s := scenario.New(w)
	s.Adopt("default", first)
	if _, err := s.CreateObject(ctx, &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteNamespaces(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Objects().Get(ctx, backend.Namespaces, "", first); err != nil {
		t.Fatalf("the scenario deleted the namespace it adopted: %v", err)
	}
	if err := pool.give(ctx, "default", first); err != nil {
		t.Fatal(err)
	}
	if pods, err := w.Objects().List(ctx, backend.Pods, first); err != nil || len(pods) > 0 {
		t.Errorf("pods left in a namespace given back: %d (%v)", len(pods), err)
	}

	pool.quarantine = time.Hour
	second, err := pool.take(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Errorf("namespace %s handed out again during its quarantine", first)
	}
	pool.quarantine = 0
	third, err := pool.take(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	if third != first {
		t.Errorf("took %s after the quarantine, want %s again", third, first)
	}
	if other, err := pool.take(ctx, "other"); err != nil || other == first || other == second {
		t.Errorf("took %q (%v) for another logical namespace", other, err)
	}

	if err := pool.close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{first, second} {
		if _, err := w.Objects().Get(ctx, backend.Namespaces, "", ns); !apierrors.IsNotFound(err) {
			t.Errorf("namespace %s after close: %v, want it deleted", ns, err)
		}
	}
}
