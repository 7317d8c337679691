package scenario

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/backend/offline"
)

// TestMentions: ${rv:…} is found in any string of an object, keys
// included, and only there.
func TestMentions(t *testing.T) {
	for _, c := range []struct {
		name string
		obj  map[string]any
		want bool
	}{
		{"none", map[string]any{"metadata": map[string]any{"name": "a"}, "n": int64(1)}, false},
		{"in a value", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"k": "${rv:again}"}}}, true},
		{"in a list", map[string]any{"spec": map[string]any{"env": []any{map[string]any{"value": "x ${rv:a} y"}}}}, true},
		{"in a key", map[string]any{"data": map[string]any{"${rv:a}": "v"}}, true},
		{"another variable", map[string]any{"v": "${ns:a}"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := isExpandable(&unstructured.Unstructured{Object: c.obj}); got != c.want {
				t.Errorf("isExpandable = %v, want %v", got, c.want)
			}
		})
	}
}

// TestNamespaceCollision: a physical namespace name that is taken (another
// scenario drew the same one) is drawn again, not a failure.
func TestNamespaceCollision(t *testing.T) {
	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	s := New(w)
	taken := "default-" + s.id
	if err := w.CreateNamespace(ctx, taken, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatalf("Namespace: %v, want a name drawn again", err)
	}
	if got == taken || !strings.HasPrefix(got, "default-") {
		t.Errorf("Namespace = %q, want default-<another id>", got)
	}
}
