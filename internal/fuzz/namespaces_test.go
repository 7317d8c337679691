package fuzz

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/backend/offlinetest"
	"presetsim.dev/presetsim/internal/scenario"
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

// forgetter stands in for an implementation that applies deleted presets
// for a while; it has forgotten a namespace's once told so.
type forgetter struct {
	forgotten map[string]bool
	asked     []string
}

func (f *forgetter) WaitForgotten(_ context.Context, ns string) error {
	f.asked = append(f.asked, ns)
	if !f.forgotten[ns] {
		return errors.New("still applies them")
	}
	return nil
}

// TestNamespacePoolWaitsUntilForgotten: a namespace goes back to the pool
// only once an implementation that applies deleted presets for a while
// (the policy) has forgotten its presets; one it cannot forget them in is
// deleted instead, never handed out again.
func TestNamespacePoolWaitsUntilForgotten(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	pool, err := newNamespaces(w)
	if err != nil {
		t.Fatal(err)
	}
	f := &forgetter{forgotten: map[string]bool{}}
	pool.forgetter, pool.quarantine = f, 0
	kept, err := pool.take(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	f.forgotten[kept] = true
	if err := pool.give(ctx, "default", kept); err != nil {
		t.Fatal(err)
	}
	stale, err := pool.take(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.give(ctx, "other", stale); err == nil {
		t.Error("a namespace whose presets the implementation still applies was given back")
	}
	if !slices.Equal(f.asked, []string{kept, stale}) {
		t.Errorf("asked about %v, want %v", f.asked, []string{kept, stale})
	}
	if again, _ := pool.take(ctx, "default"); again != kept {
		t.Errorf("took %s, want the forgotten %s again", again, kept)
	}
	if again, _ := pool.take(ctx, "other"); again == stale {
		t.Errorf("namespace %s handed out again while the implementation still applies its presets", stale)
	}
	if _, err := w.Objects().Get(ctx, backend.Namespaces, "", stale); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s: %v, want it deleted", stale, err)
	}
}
