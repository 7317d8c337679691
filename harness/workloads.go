package harness

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/presets/rollout"
)

// SetNodes makes the cluster have n simulated nodes for this scenario; the
// count goes back to the run's default at Cleanup. Node counts are
// cluster-wide: scenarios that change them must not run in parallel.
func (s *Scenario) SetNodes(ctx context.Context, n int) error {
	s.nodesChanged = true
	return s.w.Nodes.SetNodes(ctx, n)
}

// Cleanup undoes what a scenario changed outside its namespaces.
func (s *Scenario) Cleanup(ctx context.Context) error {
	if s.nodesChanged && s.w.Nodes != nil {
		s.nodesChanged = false
		return s.w.Nodes.SetNodes(ctx, s.w.DefaultNodes)
	}
	return nil
}

// EnableRollout labels a logical namespace so that the rollout controller
// restarts its workloads when a preset that selects them is created or
// deleted.
func (s *Scenario) EnableRollout(ctx context.Context, logical string) error {
	ns, err := s.Namespace(ctx, logical)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, rollout.EnableLabel)
	if _, err := s.w.Client.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("unable to label namespace %s: %s", logical, s.Logical(err.Error()))
	}
	return nil
}

// RestartedFor waits until the workload's pod template records a restart
// for the preset.
func (s *Scenario) RestartedFor(ctx context.Context, kind, name, preset string) error {
	var cause string
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, s.w.Timeouts.Wait, true, func(ctx context.Context) (bool, error) {
		obj, _, _, err := s.object(ctx, kind, name)
		if err != nil {
			return false, err
		}
		cause, _, _ = unstructured.NestedString(obj.Object, "spec", "template", "metadata", "annotations", rollout.CauseAnnotation)
		return strings.HasPrefix(cause, "PodPreset "+preset+" "), nil
	})
	if err != nil {
		return fmt.Errorf("%s %q was not restarted for PodPreset %q within %s (its %s is %q)", kind, name, preset, s.w.Timeouts.Wait, rollout.CauseAnnotation, cause)
	}
	return nil
}

// StaysAsSubmitted checks ObjectAsSubmitted for the settle window.
func (s *Scenario) StaysAsSubmitted(ctx context.Context, kind, name string) error {
	return s.holds(ctx, func() error { return s.ObjectAsSubmitted(ctx, kind, name) })
}

// object returns a workload of the scenario by the kind written in a step.
func (s *Scenario) object(ctx context.Context, kind, name string) (*unstructured.Unstructured, schema.GroupVersionResource, string, error) {
	gvk, mapping, err := s.kindOf(kind)
	if err != nil {
		return nil, schema.GroupVersionResource{}, "", err
	}
	ns, err := s.Namespace(ctx, s.namespaceOf(gvk.Kind, name))
	if err != nil {
		return nil, mapping.Resource, "", err
	}
	obj, err := s.w.Dynamic.Resource(mapping.Resource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, mapping.Resource, ns, fmt.Errorf("unable to get %s %q: %s", gvk.Kind, name, s.Logical(err.Error()))
	}
	return obj, mapping.Resource, ns, nil
}

// Scale sets a workload's spec.replicas.
func (s *Scenario) Scale(ctx context.Context, kind, name string, replicas int) error {
	_, gvr, ns, err := s.object(ctx, kind, name)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas)
	if _, err := s.w.Dynamic.Resource(gvr).Namespace(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("unable to scale %s %q: %s", kind, name, s.Logical(err.Error()))
	}
	return nil
}

// Rollout restarts a workload's pods the way `kubectl rollout restart`
// does: by stamping its pod template.
func (s *Scenario) Rollout(ctx context.Context, kind, name string) error {
	_, gvr, ns, err := s.object(ctx, kind, name)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":%q}}}}}`,
		time.Now().Format(time.RFC3339Nano))
	if _, err := s.w.Dynamic.Resource(gvr).Namespace(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("unable to roll out %s %q: %s", kind, name, s.Logical(err.Error()))
	}
	return nil
}

// DeletePod deletes a pod and waits until it is gone (a controller may
// already have made a new pod of the same name).
func (s *Scenario) DeletePod(ctx context.Context, name string) error {
	ns, err := s.Namespace(ctx, s.podNamespace(name))
	if err != nil {
		return err
	}
	pods := s.w.Client.CoreV1().Pods(ns)
	old, err := pods.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("unable to get pod %q: %s", name, s.Logical(err.Error()))
	}
	if err := pods.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("unable to delete pod %q: %s", name, s.Logical(err.Error()))
	}
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, s.w.Timeouts.Wait, true, func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return err == nil && p.UID != old.UID, nil
	})
	if err != nil {
		return fmt.Errorf("pod %q was not deleted within %s", name, s.w.Timeouts.Wait)
	}
	return nil
}

// ownedPods returns the pods controlled by the workload (for a Deployment,
// by its ReplicaSets), leaving out pods being deleted.
func (s *Scenario) ownedPods(ctx context.Context, owner *unstructured.Unstructured) ([]corev1.Pod, error) {
	owners := sets.New(owner.GetUID())
	if owner.GetKind() == "Deployment" {
		rss, err := s.w.Client.AppsV1().ReplicaSets(owner.GetNamespace()).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range rss.Items {
			if c := metav1.GetControllerOf(&rss.Items[i]); c != nil && c.UID == owner.GetUID() {
				owners.Insert(rss.Items[i].UID)
			}
		}
	}
	list, err := s.w.Client.CoreV1().Pods(owner.GetNamespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var pods []corev1.Pod
	for _, p := range list.Items {
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
	for _, pod := range s.w.Nodes.CreationOrder(ns) {
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
	nodes := s.w.Nodes.Nodes()
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
func (s *Scenario) JobCompletes(ctx context.Context, name string) error {
	var last *unstructured.Unstructured
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, s.w.Timeouts.Wait, true, func(ctx context.Context) (bool, error) {
		obj, _, _, err := s.object(ctx, "Job", name)
		if err != nil {
			return false, err
		}
		last = obj
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Complete" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		status := "no status"
		if last != nil {
			if st, ok := last.Object["status"]; ok {
				status = fmt.Sprint(st)
			}
		}
		return fmt.Errorf("Job %q did not complete within %s: %s", name, s.w.Timeouts.Wait, status)
	}
	return nil
}
