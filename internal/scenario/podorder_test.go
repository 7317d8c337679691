package scenario

import (
	"context"
	"slices"
	"testing"
	"time"

	"presetsim.dev/presetsim/internal/backend/offlinetest"

	"presetsim.dev/presetsim/harness/backend"
)

// podOrder records pods in the order they were created, per namespace, and
// nothing after stop (checked on the offline backend's watchable store).
func TestPodOrder(t *testing.T) {
	w := offlinetest.Start(t)
	ctx := context.Background()
	var order podOrder
	for _, ns := range []string{"order-a", "order-b"} {
		if err := w.Objects().CreateNamespace(ctx, ns, map[string]string{backend.RunLabel: w.RunID}); err != nil {
			t.Fatal(err)
		}
		if err := order.watchNamespace(w.Objects(), ns); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []struct{ ns, name string }{{"order-a", "web-1"}, {"order-b", "x"}, {"order-a", "web-0"}, {"order-a", "web-2"}} {
		if _, err := w.Objects().Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod(p.ns, p.name, "")), backend.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"web-1", "web-0", "web-2"}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(order.order("order-a"), want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := order.order("order-a"); !slices.Equal(got, want) {
		t.Fatalf("order-a: got %v, want %v", got, want)
	}
	if got := order.order("order-b"); !slices.Equal(got, []string{"x"}) {
		t.Errorf("order-b: got %v, want [x]", got)
	}
	order.stop()
	if _, err := w.Objects().Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("order-a", "late", "")), backend.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if got := order.order("order-a"); len(got) != 3 {
		t.Errorf("recorded after stop: %v", got)
	}
}
