package fuzz

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/backend/offlinetest"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
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

// TestElsewhere: what other cases' namespaces hold, as a request sees it:
// a preset counts as held once its create returned and until its deletion
// begins, as passing while it is created or deleted and for a quarantine
// after; a case never sees its own namespaces' presets.
func TestElsewhere(t *testing.T) {
	preset := func(ns, name string) *v1alpha1.PodPreset {
		return &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	names := func(ps []*v1alpha1.PodPreset) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Namespace+"/"+p.Name)
		}
		slices.Sort(out)
		return out
	}
	mine := []string{"default-aaaa", "default-aaaa-peer"}
	for _, tc := range []struct {
		name                string
		quarantine          time.Duration
		steps               func(p *namespaces)
		wantHeld, wantGoing []string
	}{
		{"nothing stored", 0, func(*namespaces) {}, nil, nil},
		{"a create under way, then done", 0, func(p *namespaces) {
			p.storing(preset("default-bbbb", "db"))
			done := p.storing(preset("default-bbbb", "queue"))
			done(preset("default-bbbb", "queue"))
		}, []string{"default-bbbb/queue"}, []string{"default-bbbb/db"}},
		{"a create that failed", 0, func(p *namespaces) {
			p.storing(preset("default-bbbb", "db"))(nil)
		}, nil, nil},
		{"the case's own namespaces", 0, func(p *namespaces) {
			p.storing(preset("default-aaaa", "db"))(preset("default-aaaa", "db"))
			p.storing(preset("default-aaaa-peer", "db"))(preset("default-aaaa-peer", "db"))
		}, nil, nil},
		{"a preset being deleted, then deleted", 0, func(p *namespaces) {
			p.storing(preset("default-bbbb", "db"))(preset("default-bbbb", "db"))
			p.storing(preset("default-bbbb", "queue"))(preset("default-bbbb", "queue"))
			p.deleting("default-bbbb", "db")
			p.deleting("default-bbbb", "queue")()
		}, nil, []string{"default-bbbb/db"}},
		{"a namespace being emptied, then given back", 0, func(p *namespaces) {
			p.storing(preset("default-bbbb", "db"))(preset("default-bbbb", "db"))
			p.storing(preset("default-cccc", "db"))(preset("default-cccc", "db"))
			p.storing(preset("default-dddd", "db"))(preset("default-dddd", "db"))
			p.leaving("default-bbbb")
			p.leaving("default-cccc")
			p.forget("default-cccc")
		}, []string{"default-dddd/db"}, []string{"default-bbbb/db"}},
		{"deleted less than a quarantine ago", time.Hour, func(p *namespaces) {
			p.storing(preset("default-bbbb", "db"))(preset("default-bbbb", "db"))
			p.storing(preset("default-cccc", "db"))(preset("default-cccc", "db"))
			p.deleting("default-bbbb", "db")()
			p.leaving("default-cccc")
			p.forget("default-cccc")
		}, nil, []string{"default-bbbb/db", "default-cccc/db"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &namespaces{stored: map[*v1alpha1.PodPreset]presence{}, quarantine: tc.quarantine}
			tc.steps(p)
			held, going := p.elsewhere(mine)
			if got := names(held); !slices.Equal(got, tc.wantHeld) {
				t.Errorf("held %q, want %q", got, tc.wantHeld)
			}
			if got := names(going); !slices.Equal(got, tc.wantGoing) {
				t.Errorf("passing %q, want %q", got, tc.wantGoing)
			}
		})
	}
}

// TestPeerPresetsGone: the presets of the namespace made for a case's
// other presets (PeerNamespace) are deleted when the case is released, and
// from then on no other case sees them held; the namespace itself stays,
// named after the pod's namespace, and the next case in that namespace
// takes it again rather than a new one.
func TestPeerPresetsGone(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	pool, err := newNamespaces(w)
	if err != nil {
		t.Fatal(err)
	}
	pool.quarantine = 0
	var c Case
	for seed := uint64(1); ; seed++ {
		if c = Generate(seed); len(c.Others) > 0 && c.Others[0].Namespace == PeerNamespace {
			break
		}
	}
	r := runner{w: w, namespaces: pool}
	tr, err := r.admit(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if made := tr.s.OwnNamespaces(); len(made) > 0 {
		t.Errorf("the case's scenario made namespaces %v, want none", made)
	}
	base, peer := tr.taken["default"], tr.taken[PeerNamespace]
	if want := base + "-peer"; peer != want {
		t.Fatalf("the other presets' namespace is %q, want %q (named after the pod's)", peer, want)
	}
	mine := slices.Collect(maps.Values(tr.taken))
	held, _ := pool.elsewhere(slices.DeleteFunc(slices.Clone(mine), func(n string) bool { return n == peer }))
	if len(held) != len(c.Others) || slices.ContainsFunc(held, func(p *v1alpha1.PodPreset) bool { return p.Namespace != peer }) {
		t.Errorf("while the case runs, held %v elsewhere than the pod's namespace, want its %d presets of namespace %s", held, len(c.Others), peer)
	}
	if held, _ := pool.elsewhere(mine); len(held) > 0 {
		t.Errorf("held %v elsewhere than every namespace of the case, want none", held)
	}
	if err := r.release(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if held, _ := pool.elsewhere(nil); len(held) > 0 {
		t.Errorf("once the case is released, held %v, want none", held)
	}
	if presets, err := w.Objects().List(ctx, pool.presets, peer); err != nil || len(presets) > 0 {
		t.Errorf("namespace %s after the case: %d presets (%v), want none and the namespace kept", peer, len(presets), err)
	}
	again, err := r.admit(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.release(ctx, again) }()
	if again.taken["default"] != base || again.taken[PeerNamespace] != peer {
		t.Errorf("the same case again took %v, want %s and %s again", again.taken, base, peer)
	}
}

// TestElsewhereOfARequest: a preset held at both looks was held for the
// whole request; one held at a single look, or passing at either, may or
// may not have been seen.
func TestElsewhereOfARequest(t *testing.T) {
	a, b, c, d := &v1alpha1.PodPreset{}, &v1alpha1.PodPreset{}, &v1alpha1.PodPreset{}, &v1alpha1.PodPreset{}
	got := elsewhere([]*v1alpha1.PodPreset{a, b}, []*v1alpha1.PodPreset{a, c}, []*v1alpha1.PodPreset{d}, []*v1alpha1.PodPreset{d, b})
	if len(got.Held) != 1 || got.Held[0] != a {
		t.Errorf("held %v, want only the preset held at both looks", got.Held)
	}
	if len(got.Passing) != 3 || !slices.Contains(got.Passing, b) || !slices.Contains(got.Passing, c) || !slices.Contains(got.Passing, d) {
		t.Errorf("passing %v, want the three others, each once", got.Passing)
	}
}
