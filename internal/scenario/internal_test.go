package scenario

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
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

// TestWindowCountsFromTheChange: a settle window closes its length after
// the change it follows, so a check that starts later watches only what is
// left of it, and looks once when nothing is; without a change it counts
// from the check's start.
func TestWindowCountsFromTheChange(t *testing.T) {
	const length = 150 * time.Millisecond
	tests := []struct {
		name      string
		from      time.Duration // before the check starts; 0: no change
		atLeast   int           // looks
		justOnce  bool
		untilLeft time.Duration // the check lasts at least this
	}{
		{name: "no change: the whole window", atLeast: 2, untilLeft: length},
		{name: "a change just now: the whole window", from: time.Nanosecond, atLeast: 2, untilLeft: length - time.Millisecond},
		{name: "a change long ago: one look", from: 2 * length, atLeast: 1, justOnce: true},
	}
	s := &Scenario{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Window{Length: length}
			if tt.from > 0 {
				w.From = time.Now().Add(-tt.from)
			}
			looks := 0
			start := time.Now()
			if err := s.holds(context.Background(), w, func() error { looks++; return nil }); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			if looks < tt.atLeast || (tt.justOnce && looks != 1) {
				t.Errorf("looked %d times, want at least %d (just once: %v)", looks, tt.atLeast, tt.justOnce)
			}
			if took < tt.untilLeft {
				t.Errorf("the check ended after %s, before its window closed (%s)", took, tt.untilLeft)
			}
		})
	}
	t.Run("a failure ends it at once", func(t *testing.T) {
		errNo := errors.New("it happened")
		if err := s.holds(context.Background(), Window{Length: time.Hour}, func() error { return errNo }); !errors.Is(err, errNo) {
			t.Errorf("holds = %v, want %v", err, errNo)
		}
	})
}
