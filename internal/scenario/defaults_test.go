package scenario

import (
	"context"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
)

// dryRuns counts the dry-run creates made through it, and hides the
// offline backend's in-memory defaulting, so that pods are defaulted by a
// dry-run create as on an API server.
type dryRuns struct {
	backend.Objects
	n atomic.Int32
}

func (d *dryRuns) Create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, opts backend.CreateOptions) (*unstructured.Unstructured, error) {
	if opts.DryRun {
		d.n.Add(1)
	}
	return d.Objects.Create(ctx, gvr, u, opts)
}

// TestDefaultedOncePerPod: a scenario dry-runs each distinct expected pod
// once (the same pod again comes from the first answer; nil and empty
// maps are the same), dry-runs a pod that differs in anything it sends,
// and gives every caller a pod of its own with the labels it expects.
func TestDefaultedOncePerPod(t *testing.T) {
	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	counter := &dryRuns{Objects: w.Objects()}
	s := New(w)
	s.cluster = counter
	pod := func(image string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default-x", Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}},
		}
	}
	steps := []struct {
		name   string
		pod    *corev1.Pod
		dryRun int32 // dry runs so far, after this one
	}{
		{"first", pod("i", map[string]string{"a": "b"}), 1},
		{"the same pod again", pod("i", map[string]string{"a": "b"}), 1},
		{"another pod, its labels an empty map", pod("j", map[string]string{}), 2},
		{"the same with nil labels", pod("j", nil), 2},
		{"another image", pod("k", nil), 3},
	}
	for i, st := range steps {
		got, err := s.Defaulted(ctx, st.pod)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if n := counter.n.Load(); n != st.dryRun {
			t.Errorf("%s: %d dry runs, want %d", st.name, n, st.dryRun)
		}
		if got.Spec.Containers[0].Image != st.pod.Spec.Containers[0].Image || len(got.Labels) != len(st.pod.Labels) {
			t.Errorf("%s: defaulted %s with labels %v, want image %s and the labels as expected %v",
				st.name, got.Spec.Containers[0].Image, got.Labels, st.pod.Spec.Containers[0].Image, st.pod.Labels)
		}
		if got.Name == "" || got.Namespace != w.DefaultingNamespace {
			t.Errorf("%s: got %s/%s, want a name generated in the defaulting namespace %s", st.name, got.Namespace, got.Name, w.DefaultingNamespace)
		}
		if i <= 1 { // the first answer, and the same from memory
			got.Spec.Containers[0].Image = "changed by a caller"
		}
	}
	again, err := s.Defaulted(ctx, pod("i", map[string]string{"a": "b"}))
	if err != nil {
		t.Fatal(err)
	}
	if again.Spec.Containers[0].Image != "i" {
		t.Errorf("a caller's change to its defaulted pod reached another caller: image %q", again.Spec.Containers[0].Image)
	}
	if n := New(w); len(n.defaults) != 0 {
		t.Errorf("a new scenario starts with %d defaulted pods", len(n.defaults))
	}
}
