package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/compare/valuediff"
	"presetsim.dev/presetsim/internal/rollout"
)

// SetNodes makes the cluster have n simulated nodes for this scenario; the
// count goes back to the run's default at Cleanup. Node counts are
// cluster-wide: scenarios that change them must not run in parallel.
func (s *Scenario) SetNodes(ctx context.Context, n int) error {
	sim, err := s.nodes()
	if err != nil {
		return err
	}
	s.onCleanup(func(ctx context.Context) error { return sim.SetNodes(ctx, s.World().DefaultNodes) })
	return sim.SetNodes(ctx, n)
}

// nodes returns the node simulator, or an UnsupportedError when the backend
// has none.
func (s *Scenario) nodes() (backend.NodeSet, error) {
	if sim := backend.Nodes(s.Objects()); sim != nil {
		return sim, nil
	}
	if backend.RunsPods(s.Objects()) {
		return nil, &backend.UnsupportedError{Backend: s.World().Backend, Reason: "the cluster's nodes are real: the harness cannot add, remove or track them as it does simulated ones"}
	}
	return nil, s.noNodes()
}

// EnableRollout labels a logical namespace so that the rollout controller
// restarts its workloads when a preset that selects them is created or
// deleted.
func (s *Scenario) EnableRollout(ctx context.Context, logical string) error {
	ns, err := s.Namespace(ctx, logical)
	if err != nil {
		return err
	}
	if err := s.Objects().LabelNamespace(ctx, ns, rollout.EnableLabel, "true"); err != nil {
		return s.Failed(err, "unable to label namespace %s", logical)
	}
	return nil
}

// RestartedFor waits until the workload's pod template records a restart
// for the preset.
func (s *Scenario) RestartedFor(ctx context.Context, kind, name, preset string) error {
	var cause string
	_, gvr, ns, err := s.object(ctx, kind, name)
	if err != nil {
		return err
	}
	err = s.WaitUntil(ctx, ns, s.World().Timeouts.Wait, func(ctx context.Context) (bool, error) {
		obj, _, _, err := s.object(ctx, kind, name)
		if err != nil {
			return false, err
		}
		cause, _, _ = unstructured.NestedString(obj.Object, "spec", "template", "metadata", "annotations", rollout.CauseAnnotation)
		return strings.HasPrefix(cause, "PodPreset "+preset+" "), nil
	}, gvr)
	if err != nil {
		return fmt.Errorf("%s %q was not restarted for PodPreset %q within %s (its %s is %q)", kind, name, preset, s.World().Timeouts.Wait, rollout.CauseAnnotation, cause)
	}
	return nil
}

// StaysAsSubmitted checks ObjectAsSubmitted for window.
func (s *Scenario) StaysAsSubmitted(ctx context.Context, kind, name string, window Window) error {
	return s.holds(ctx, window, func() error { return s.ObjectAsSubmitted(ctx, kind, name) })
}

// object returns a workload of the scenario by the kind written in a step.
func (s *Scenario) object(ctx context.Context, kind, name string) (*unstructured.Unstructured, schema.GroupVersionResource, string, error) {
	gvk, mapping, ns, err := s.objectNamespace(ctx, kind, name)
	if err != nil {
		return nil, schema.GroupVersionResource{}, "", err
	}
	obj, err := s.Objects().Get(ctx, mapping.Resource, ns, name)
	if err != nil {
		return nil, mapping.Resource, ns, s.Failed(err, "unable to get %s %q", gvk.Kind, name)
	}
	return obj, mapping.Resource, ns, nil
}

// Scale sets a workload's spec.replicas, as `kubectl scale` does.
func (s *Scenario) Scale(ctx context.Context, kind, name string, replicas int) error {
	return s.patchWorkload(ctx, kind, name, "scaling", fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas))
}

// Rollout restarts a workload's pods the way `kubectl rollout restart`
// does: a new annotation on its pod template.
func (s *Scenario) Rollout(ctx context.Context, kind, name string) error {
	return s.patchWorkload(ctx, kind, name, "rollout", fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":%q}}}}}`,
		time.Now().Format(time.RFC3339Nano)))
}

// patchWorkload merge-patches a workload, as a user's UPDATE of it, and
// checks what the API server stored (updatedAsAsked). An implementation
// whose own registration sends it the UPDATE must change nothing in it
// (R2.1, R2.6): a changed workload is an *ObjectChanged, so that the step
// names R2.6, not what the change leads to later (a rollout that never
// settles).
func (s *Scenario) patchWorkload(ctx context.Context, kind, name, update, patch string) error {
	before, gvr, ns, err := s.object(ctx, kind, name)
	if err != nil {
		return err
	}
	if err := s.Objects().MergePatch(ctx, gvr, ns, name, []byte(patch)); err != nil {
		return s.Failed(err, "unable to apply the %s of %s %q", update, kind, name)
	}
	after, err := s.Objects().Get(ctx, gvr, ns, name)
	if err != nil {
		return s.Failed(err, "unable to get %s %q", kind, name)
	}
	changed, err := updatedAsAsked(before, after, update, []byte(patch), s.World().AnnotationPrefix)
	if err != nil {
		return fmt.Errorf("the harness's %s of %s %q: %w", update, kind, name, err)
	}
	if changed != nil {
		return changed
	}
	return nil
}

// updatedAsAsked compares a workload as stored after a merge patch with
// the workload before it with the patch applied: nothing else in its
// spec, and no annotation under the implementation's prefix added. Nil
// when they agree, and when the spec changed more than once meanwhile
// (its generation by more than one), so that a controller's update beside
// the harness's (the reference's rollouts stamp a template) is never
// taken for the implementation's.
func updatedAsAsked(before, after *unstructured.Unstructured, update string, patch []byte, prefix string) (*ObjectChanged, error) {
	if after.GetGeneration() > before.GetGeneration()+1 {
		return nil, nil
	}
	doc, err := json.Marshal(before.Object)
	if err != nil {
		return nil, err
	}
	if doc, err = jsonpatch.MergePatch(doc, patch); err != nil {
		return nil, err
	}
	var want map[string]any
	if err := json.Unmarshal(doc, &want); err != nil {
		return nil, err
	}
	diffs := valuediff.Values("spec", want["spec"], after.Object["spec"])
	for _, k := range slices.Sorted(maps.Keys(after.GetAnnotations())) {
		if _, ok := before.GetAnnotations()[k]; !ok && strings.HasPrefix(k, prefix) {
			diffs = append(diffs, valuediff.Difference{Path: "metadata.annotations[" + k + "]", Want: valuediff.Absent, Got: fmt.Sprintf("%q", after.GetAnnotations()[k])})
		}
	}
	if len(diffs) == 0 {
		return nil, nil
	}
	return &ObjectChanged{Kind: after.GetKind(), Name: after.GetName(), Update: update, Differences: diffs}, nil
}

// DeletePod deletes a pod and waits until it is gone (a controller may
// already have made a new pod of the same name).
func (s *Scenario) DeletePod(ctx context.Context, name string) error {
	ns, err := s.Namespace(ctx, s.podNamespace(name))
	if err != nil {
		return err
	}
	old, err := s.Objects().Get(ctx, backend.Pods, ns, name)
	if err != nil {
		return s.Failed(err, "unable to get pod %q", name)
	}
	if err := s.Objects().Delete(ctx, backend.Pods, ns, name); err != nil {
		return s.Failed(err, "unable to delete pod %q", name)
	}
	err = s.WaitUntil(ctx, ns, s.World().Timeouts.Wait, func(ctx context.Context) (bool, error) {
		p, err := s.Objects().Get(ctx, backend.Pods, ns, name)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return err == nil && p.GetUID() != old.GetUID(), nil
	}, backend.Pods)
	if err != nil {
		return fmt.Errorf("pod %q was not deleted within %s", name, s.World().Timeouts.Wait)
	}
	return nil
}

// ownedPods returns the pods controlled by the workload (for a Deployment,
// by its ReplicaSets), leaving out pods being deleted.
func (s *Scenario) ownedPods(ctx context.Context, owner *unstructured.Unstructured) ([]corev1.Pod, error) {
	rss, err := s.replicaSetsOf(ctx, owner)
	if err != nil {
		return nil, err
	}
	return s.podsOf(ctx, owner, rss)
}

// replicaSetsOf returns the ReplicaSets a Deployment controls; none for
// another kind.
func (s *Scenario) replicaSetsOf(ctx context.Context, owner *unstructured.Unstructured) ([]unstructured.Unstructured, error) {
	if owner.GetKind() != "Deployment" {
		return nil, nil
	}
	list, err := s.Objects().List(ctx, backend.ReplicaSets, owner.GetNamespace())
	if err != nil {
		return nil, err
	}
	var rss []unstructured.Unstructured
	for i := range list {
		if c := metav1.GetControllerOf(&list[i]); c != nil && c.UID == owner.GetUID() {
			rss = append(rss, list[i])
		}
	}
	return rss, nil
}

// podsOf returns the pods controlled by the workload or by one of its
// ReplicaSets, rss, leaving out pods being deleted.
func (s *Scenario) podsOf(ctx context.Context, owner *unstructured.Unstructured, rss []unstructured.Unstructured) ([]corev1.Pod, error) {
	owners := sets.New(owner.GetUID())
	for i := range rss {
		owners.Insert(rss[i].GetUID())
	}
	list, err := s.podsIn(ctx, owner.GetNamespace())
	if err != nil {
		return nil, err
	}
	var pods []corev1.Pod
	for _, p := range list {
		if c := metav1.GetControllerOf(&p); c != nil && owners.Has(c.UID) && p.DeletionTimestamp == nil {
			pods = append(pods, p)
		}
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	return pods, nil
}

// settled reports whether a workload's controller has caught up with its
// spec: every replica updated and ready, nothing left of an old rollout.
// The string says what is still missing.
func settled(obj *unstructured.Unstructured) (bool, string) {
	num := func(path ...string) int64 {
		v, _, _ := unstructured.NestedInt64(obj.Object, path...)
		return v
	}
	if obj.GetGeneration() > num("status", "observedGeneration") && obj.GetKind() != "Job" {
		return false, "its controller has not observed the latest generation"
	}
	replicas, found, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	check := func(pairs ...any) (bool, string) {
		var missing []string
		for i := 0; i < len(pairs); i += 2 {
			name, got := pairs[i].(string), pairs[i+1].(int64)
			if got != replicas {
				missing = append(missing, fmt.Sprintf("%s %d/%d", name, got, replicas))
			}
		}
		return len(missing) == 0, strings.Join(missing, ", ")
	}
	switch obj.GetKind() {
	case "Deployment":
		return check("replicas", num("status", "replicas"), "updatedReplicas", num("status", "updatedReplicas"),
			"availableReplicas", num("status", "availableReplicas"))
	case "StatefulSet":
		ok, msg := check("replicas", num("status", "replicas"), "readyReplicas", num("status", "readyReplicas"),
			"updatedReplicas", num("status", "updatedReplicas"))
		if cur, _, _ := unstructured.NestedString(obj.Object, "status", "currentRevision"); ok && cur != "" {
			upd, _, _ := unstructured.NestedString(obj.Object, "status", "updateRevision")
			if cur != upd {
				return false, "currentRevision is not the updateRevision yet"
			}
		}
		return ok, msg
	case "ReplicaSet":
		return check("replicas", num("status", "replicas"), "readyReplicas", num("status", "readyReplicas"))
	case "DaemonSet":
		replicas = num("status", "desiredNumberScheduled")
		return check("numberReady", num("status", "numberReady"), "updatedNumberScheduled", num("status", "updatedNumberScheduled"))
	}
	return true, ""
}

// PodsCreatedInOrder checks that a StatefulSet's pods appeared in ordinal
// order, each only after the one before it.
func (s *Scenario) PodsCreatedInOrder(ctx context.Context, kind, name string) error {
	_, _, ns, err := s.object(ctx, kind, name)
	if err != nil {
		return err
	}
	var ordinals []int
	seen := map[int]bool{}
	var created []string
	if s.kubelet() != nil {
		created = s.CreationOrder(ns)
	} else {
		sim, err := s.nodes()
		if err != nil {
			return err
		}
		created = sim.CreationOrder(ns)
	}
	for _, pod := range created {
		suffix, ok := strings.CutPrefix(pod, name+"-")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(suffix)
		if err != nil || seen[i] {
			continue
		}
		seen[i] = true
		ordinals = append(ordinals, i)
	}
	for i, o := range ordinals {
		if o != i {
			return fmt.Errorf("the pods of %s %q were created in the order %v, want 0, 1, 2, ...", kind, name, ordinals)
		}
	}
	if len(ordinals) == 0 {
		return fmt.Errorf("no pod of %s %q was created", kind, name)
	}
	return nil
}

// OnePodPerNode checks that every simulated node runs exactly one pod of
// the workload.
func (s *Scenario) OnePodPerNode(ctx context.Context, kind, name string) error {
	obj, _, _, err := s.object(ctx, kind, name)
	if err != nil {
		return err
	}
	pods, err := s.ownedPods(ctx, obj)
	if err != nil {
		return err
	}
	perNode := map[string][]string{}
	for _, p := range pods {
		perNode[p.Spec.NodeName] = append(perNode[p.Spec.NodeName], p.Name)
	}
	var problems []string
	sim, err := s.nodes()
	if err != nil {
		return err
	}
	nodes := sim.Nodes()
	for _, n := range nodes {
		if len(perNode[n]) != 1 {
			problems = append(problems, fmt.Sprintf("node %s runs %d pods %v", n, len(perNode[n]), perNode[n]))
		}
		delete(perNode, n)
	}
	for n, ps := range perNode {
		problems = append(problems, fmt.Sprintf("pods %v are on %q, not a simulated node", ps, n))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s %q is not one pod per node (%d nodes): %s", kind, name, len(nodes), strings.Join(problems, "; "))
	}
	return nil
}

// JobCompletes waits until the Job has the condition Complete.
// On a real kubelet the Job's pods run the printenv test image, which
// sleeps until told to finish: the harness finishes each pod once it runs
// (finishPods), and names the last container it could not finish if the
// Job does not complete.
func (s *Scenario) JobCompletes(ctx context.Context, name string) error {
	var last *unstructured.Unstructured
	var unfinished error // the last container that could not be told to finish
	finished := map[string]time.Time{}
	_, jobs, ns, err := s.object(ctx, "Job", name)
	if err != nil {
		return err
	}
	err = s.WaitUntil(ctx, ns, s.World().Timeouts.Wait, func(ctx context.Context) (bool, error) {
		obj, _, _, err := s.object(ctx, "Job", name)
		if err != nil {
			return false, err
		}
		last = obj
		if k := s.kubelet(); k != nil {
			pods, err := s.ownedPods(ctx, obj)
			if err != nil {
				return false, err
			}
			if err := finishPods(ctx, k, pods, finished, time.Now()); err != nil {
				unfinished = err
			}
		}
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Complete" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	}, jobs, backend.Pods)
	if err != nil {
		status := "no status"
		if last != nil {
			if st, ok := last.Object["status"]; ok {
				status = fmt.Sprint(st)
			}
		}
		if !wait.Interrupted(err) {
			return fmt.Errorf("waiting for Job %q to complete: %w", name, err)
		}
		if unfinished != nil {
			return fmt.Errorf("Job %q did not complete within %s: %s; last, %w", name, s.World().Timeouts.Wait, status, unfinished)
		}
		return fmt.Errorf("Job %q did not complete within %s: %s", name, s.World().Timeouts.Wait, status)
	}
	return nil
}
