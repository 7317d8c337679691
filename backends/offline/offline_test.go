package offline_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/backend/offlinetest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// TestOfflineBackend covers what the offline backend does, and what it
// reports as unsupported instead of pretending.
func TestOfflineBackend(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	c := w.Objects()
	if err := c.CreateNamespace(ctx, "admitted", map[string]string{backend.AdmissionLabel: w.RunID}); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNamespace(ctx, "other", nil); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"admitted", "other"} {
		pp := &v1alpha1.PodPreset{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
			Spec: v1alpha1.PodPresetSpec{
				Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Env:      []corev1.EnvVar{{Name: "DB_PORT", Value: "6379"}},
			},
		}
		created, err := c.Create(ctx, v1alpha1.GroupVersionResource(), offlinetest.Unstructured(t, pp), backend.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WaitForPreset(ctx, ns, "db", created.GetResourceVersion()); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("a pod in a namespace the module is registered for is admitted", func(t *testing.T) {
		got, err := c.Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("admitted", "a", "")), backend.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pod := toPod(t, got)
		if len(pod.Spec.Containers[0].Env) != 1 || pod.Annotations[merge.AnnotationKey("db")] == "" {
			t.Errorf("pod not mutated: env %v, annotations %v", pod.Spec.Containers[0].Env, pod.Annotations)
		}
		if pod.UID == "" || pod.ResourceVersion == "" || pod.CreationTimestamp.IsZero() {
			t.Errorf("system fields not set: uid %q rv %q created %v", pod.UID, pod.ResourceVersion, pod.CreationTimestamp)
		}
	})
	t.Run("presets list through the dynamic client, as an informer relists them", func(t *testing.T) {
		list, err := c.Clients().Dynamic.Resource(v1alpha1.GroupVersionResource()).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, u := range list.Items {
			found[u.GetNamespace()+"/"+u.GetName()] = true
		}
		if !found["admitted/db"] || !found["other/db"] {
			t.Errorf("listed %v, want admitted/db and other/db among them", found)
		}
	})
	t.Run("a namespace is labelled with its name, as by the API server", func(t *testing.T) {
		ns, err := c.Clients().Typed.CoreV1().Namespaces().Get(ctx, "other", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ns.Labels[corev1.LabelMetadataName]; got != "other" {
			t.Errorf("label %s = %q, want other", corev1.LabelMetadataName, got)
		}
		if err := c.LabelNamespace(ctx, "other", corev1.LabelMetadataName, "changed"); err != nil {
			t.Fatal(err)
		}
		if ns, err = c.Clients().Typed.CoreV1().Namespaces().Get(ctx, "other", metav1.GetOptions{}); err != nil || ns.Labels[corev1.LabelMetadataName] != "other" {
			t.Errorf("after an update the label is %q (%v), want other", ns.Labels[corev1.LabelMetadataName], err)
		}
	})
	t.Run("a pod elsewhere is not", func(t *testing.T) {
		got, err := c.Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("other", "a", "")), backend.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod := toPod(t, got); len(pod.Spec.Containers[0].Env) != 0 {
			t.Errorf("pod mutated in a namespace without the admission label: %v", pod.Spec.Containers[0].Env)
		}
	})
	t.Run("a dry run stores nothing", func(t *testing.T) {
		if _, err := c.Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("admitted", "dry", "")), backend.CreateOptions{DryRun: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, backend.Pods, "admitted", "dry"); !apierrors.IsNotFound(err) {
			t.Errorf("get after dry run: %v, want NotFound", err)
		}
	})
	t.Run("a name is generated after admission", func(t *testing.T) {
		got, err := c.Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("admitted", "", "gen-")), backend.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(got.GetName(), "gen-") || len(got.GetName()) != len("gen-")+5 {
			t.Errorf("name %q, want gen- and 5 characters", got.GetName())
		}
	})
	t.Run("a duplicate name is refused", func(t *testing.T) {
		_, err := c.Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("admitted", "a", "")), backend.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			t.Errorf("got %v, want AlreadyExists", err)
		}
	})
	t.Run("a pod in a missing namespace is refused", func(t *testing.T) {
		_, err := c.Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("missing", "a", "")), backend.CreateOptions{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("got %v, want NotFound", err)
		}
	})
	t.Run("other workloads are unsupported, with the reason", func(t *testing.T) {
		d := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "admitted"}}}
		_, err := c.Create(ctx, backend.ReplicaSets.GroupVersion().WithResource("deployments"), d, backend.CreateOptions{})
		u, ok := backend.IsUnsupported(err)
		if !ok || !strings.Contains(u.Reason, "Deployment controller") {
			t.Errorf("got %v, want an UnsupportedError naming the Deployment controller", err)
		}
	})
	t.Run("requests are not validated", func(t *testing.T) {
		if c.Validates() {
			t.Error("the offline backend claims to validate")
		}
	})
	t.Run("a stale update is a conflict", func(t *testing.T) {
		gvr := v1alpha1.GroupVersionResource()
		cur, err := c.Get(ctx, gvr, "admitted", "db")
		if err != nil {
			t.Fatal(err)
		}
		stale := cur.DeepCopy()
		if _, err := c.Update(ctx, gvr, cur, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Update(ctx, gvr, stale, nil); !apierrors.IsConflict(err) {
			t.Errorf("got %v, want Conflict", err)
		}
	})
	// Last: it empties the namespace "other".
	t.Run("delete all empties one resource of one namespace", func(t *testing.T) {
		if _, err := c.Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("other", "kept", "")), backend.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, gvr := range []schema.GroupVersionResource{v1alpha1.GroupVersionResource(), backend.Pods} {
			if before, err := c.List(ctx, gvr, "other"); err != nil || len(before) == 0 {
				t.Fatalf("%s of namespace other before DeleteAll: %d (%v), want some", gvr.Resource, len(before), err)
			}
			if err := c.DeleteAll(ctx, gvr, "other"); err != nil {
				t.Fatal(err)
			}
			if left, err := c.List(ctx, gvr, "other"); err != nil || len(left) > 0 {
				t.Errorf("%s of namespace other after DeleteAll: %d (%v), want none", gvr.Resource, len(left), err)
			}
		}
		if _, err := c.Get(ctx, v1alpha1.GroupVersionResource(), "admitted", "db"); err != nil {
			t.Errorf("the preset of another namespace went too: %v", err)
		}
		if err := c.DeleteAll(ctx, backend.Pods, ""); err == nil {
			t.Error("DeleteAll of every namespace at once was not refused")
		}
	})
}

// TestOfflineReplicaSet covers the offline ReplicaSet controller: create,
// scale up and down, and a deleted pod replaced.
func TestOfflineReplicaSet(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	c := w.Objects()
	if err := c.CreateNamespace(ctx, "ns", map[string]string{backend.AdmissionLabel: w.RunID}); err != nil {
		t.Fatal(err)
	}
	rs := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": "web", "namespace": "ns"},
		"spec": map[string]any{
			"replicas": int64(2),
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx"}}},
			},
		},
	}}
	created, err := c.Create(ctx, backend.ReplicaSets, rs, backend.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		pods, err := c.List(ctx, backend.Pods, "ns")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range pods {
			if o := metav1.GetControllerOf(&pods[i]); o != nil && o.UID == created.GetUID() {
				n++
			}
		}
		return n
	}
	if n := count(); n != 2 {
		t.Fatalf("%d pods after create, want 2", n)
	}
	if ok, why := ready(created); !ok {
		t.Errorf("ReplicaSet not settled after create: %s", why)
	}
	for _, replicas := range []int{4, 1} {
		if err := c.MergePatch(ctx, backend.ReplicaSets, "ns", "web", []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas))); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != replicas {
			t.Errorf("%d pods after scaling to %d", n, replicas)
		}
		got, _ := c.Get(ctx, backend.ReplicaSets, "ns", "web")
		if ok, why := ready(got); !ok {
			t.Errorf("ReplicaSet not settled after scaling to %d: %s", replicas, why)
		}
	}
	pods, _ := c.List(ctx, backend.Pods, "ns")
	if err := c.Delete(ctx, backend.Pods, "ns", pods[0].GetName()); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Errorf("%d pods after deleting one, want it replaced", n)
	}
	if _, err := c.Get(ctx, backend.Pods, "ns", pods[0].GetName()); !apierrors.IsNotFound(err) {
		t.Errorf("deleted pod still there: %v", err)
	}
}

func toPod(t *testing.T, u *unstructured.Unstructured) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

// ready reports whether a ReplicaSet's status says every replica is ready.
func ready(rs *unstructured.Unstructured) (bool, string) {
	want, _, _ := unstructured.NestedInt64(rs.Object, "spec", "replicas")
	got, _, _ := unstructured.NestedInt64(rs.Object, "status", "readyReplicas")
	return got == want, fmt.Sprintf("readyReplicas %d/%d", got, want)
}

// TestWatch: watches of one namespace each see its events; a stopped watch
// ends; deleting the namespace ends the others; and watching again and
// again does not make memory grow (the fake tracker keeps every watcher it
// made, so they are shared).
func TestWatch(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	c := w.Objects()
	if err := c.CreateNamespace(ctx, "watched", nil); err != nil {
		t.Fatal(err)
	}
	a, err := c.Watch(ctx, backend.Pods, "watched")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Watch(ctx, backend.Pods, "watched")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, backend.Pods, offlinetest.Unstructured(t, offlinetest.Pod("watched", "p", "")), backend.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, wt := range map[string]watch.Interface{"first": a, "second": b} {
		select {
		case ev := <-wt.ResultChan():
			if ev.Type != watch.Added {
				t.Errorf("%s watch: %s, want Added", name, ev.Type)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s watch saw no event", name)
		}
	}
	a.Stop()
	a.Stop()
	if _, open := <-a.ResultChan(); open {
		t.Error("a stopped watch is still open")
	}
	if err := c.Delete(ctx, backend.Namespaces, "", "watched"); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-b.ResultChan():
		case <-deadline:
			t.Fatal("a watch of a deleted namespace did not end")
		}
	}

	if err := c.CreateNamespace(ctx, "again", nil); err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		goruntime.GC()
		var m goruntime.MemStats
		goruntime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for range 20000 {
		wt, err := c.Watch(ctx, backend.Events, "again")
		if err != nil {
			t.Fatal(err)
		}
		wt.Stop()
	}
	if grew := int64(heap()) - int64(before); grew > 1<<20 {
		t.Errorf("20,000 watches started and stopped kept %d KiB", grew>>10)
	}
}

// TestBulkDeleteOfWatchedResource: deleting many objects of a watched
// resource at once does not panic, however little the watch's feed is
// scheduled: the tracker hands each change to it through a channel of 100
// that panics when full, and the deletion waits for the feed.
func TestBulkDeleteOfWatchedResource(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	c := w.Objects()
	if err := c.CreateNamespace(ctx, "bulk", nil); err != nil {
		t.Fatal(err)
	}
	wt, err := c.Watch(ctx, backend.Events, "bulk")
	if err != nil {
		t.Fatal(err)
	}
	wt.Stop()
	for i := range 1000 {
		e := &corev1.Event{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"}, ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("e-%d", i), Namespace: "bulk"}, Reason: "R"}
		if _, err := c.Create(ctx, backend.Events, offlinetest.Unstructured(t, e), backend.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			time.Sleep(time.Millisecond) // the creates are paced as a case's are
		}
	}
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(1))
	if err := c.DeleteAll(ctx, backend.Events, "bulk"); err != nil {
		t.Fatal(err)
	}
	left, err := c.List(ctx, backend.Events, "bulk")
	if err != nil || len(left) != 0 {
		t.Errorf("%d events left (%v)", len(left), err)
	}
}

// TestClientWatchNotReadLosesNothing: a fake client's watch (an informer's)
// that is not read while presets are created and deleted in bulk — an
// informer starved of the CPU on a loaded host — neither crashes the
// backend (the tracker panics when a watcher's channel of 100 is full) nor
// loses an event: read later, it has every change, in order.
func TestClientWatchNotReadLosesNothing(t *testing.T) {
	ctx := context.Background()
	w := offlinetest.Start(t)
	c := w.Objects()
	if err := c.CreateNamespace(ctx, "bulk", nil); err != nil {
		t.Fatal(err)
	}
	gvr := v1alpha1.GroupVersionResource()
	wt, err := c.Clients().Dynamic.Resource(gvr).Namespace("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Stop()
	const n = 300
	for i := range n {
		p := &v1alpha1.PodPreset{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%03d", i), Namespace: "bulk"},
			Spec:       v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{{Name: "A", Value: "1"}}}}
		if _, err := c.Create(ctx, gvr, offlinetest.Unstructured(t, p), backend.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.DeleteAll(ctx, gvr, "bulk"); err != nil {
		t.Fatal(err)
	}
	counts := map[watch.EventType]int{}
	timeout := time.After(30 * time.Second)
	for counts[watch.Added]+counts[watch.Deleted] < 2*n {
		select {
		case ev, ok := <-wt.ResultChan():
			if !ok {
				t.Fatalf("the watch ended after %v", counts)
			}
			counts[ev.Type]++
		case <-timeout:
			t.Fatalf("after 30s the watch had %v, want %d added and %d deleted", counts, n, n)
		}
	}
	if counts[watch.Added] != n || counts[watch.Deleted] != n {
		t.Errorf("events %v, want %d added and %d deleted", counts, n, n)
	}
}

// TestStopEndsWatches: a cluster stopped ends its watches, the backend's
// and those a fake client's informer holds, so that nothing of it keeps
// running in the process.
func TestStopEndsWatches(t *testing.T) {
	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	c := w.Objects().(*offline.Cluster)
	if err := c.CreateNamespace(ctx, "watched", nil); err != nil {
		t.Fatal(err)
	}
	mine, err := c.Watch(ctx, backend.Pods, "watched")
	if err != nil {
		t.Fatal(err)
	}
	informers, err := c.Clients().Typed.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Stop(); err != nil {
		t.Fatal(err)
	}
	for name, wt := range map[string]watch.Interface{"the backend's": mine, "a client's": informers} {
		select {
		case _, open := <-wt.ResultChan():
			if open {
				t.Errorf("%s watch had an event after the cluster stopped", name)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s watch still open 10s after the cluster stopped", name)
		}
	}
}
