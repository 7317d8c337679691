package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/compare/valuediff"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/manifest"
)

// WaitForPods waits until exactly n pods are controlled by the object (for a
// Deployment, by its ReplicaSets) and, for workloads, until the controller
// has settled: every replica updated and ready, nothing left of an old
// rollout. Pods being deleted do not count.
func (s *Scenario) WaitForPods(ctx context.Context, n int, kind, name string) ([]corev1.Pod, error) {
	var (
		pods   []corev1.Pod
		status string
		gvk    string
	)
	_, ownerGVR, ns, err := s.object(ctx, kind, name)
	if err != nil {
		return nil, err
	}
	err = s.WaitUntil(ctx, ns, s.World().Timeouts.Wait, func(ctx context.Context) (bool, error) {
		owner, _, _, err := s.object(ctx, kind, name)
		if err != nil {
			return false, err
		}
		gvk = owner.GetKind()
		rss, err := s.replicaSetsOf(ctx, owner)
		if err != nil {
			return false, err
		}
		if pods, err = s.podsOf(ctx, owner, rss); err != nil {
			return false, err
		}
		if len(pods) < n {
			if msg := failedCreate(owner); msg != "" {
				return false, s.refusedPods(ctx, owner, msg)
			}
		}
		var ok bool
		if ok, status = settled(owner); !ok {
			// Why it does not settle, when the implementation is why.
			if changed := s.changedReplicaSet(owner, rss); changed != nil {
				return false, changed
			}
		}
		return ok && len(pods) == n, nil
	}, backend.Pods, ownerGVR, backend.ReplicaSets)
	var changed *ObjectChanged
	if errors.As(err, &changed) {
		return nil, fmt.Errorf("want %d pods owned by %s %q, have %d: %w", n, kind, name, len(pods), changed)
	}
	if err != nil {
		if status != "" {
			status = fmt.Sprintf(" (%s %q not settled: %s)", gvk, name, status)
		}
		if ctx.Err() == nil && (wait.Interrupted(err) || errors.Is(err, context.DeadlineExceeded)) {
			err = nil // just the timeout, said already
		}
		msg := fmt.Sprintf("want %d pods owned by %s %q, have %d after %s%s", n, kind, name, len(pods), s.World().Timeouts.Wait, status)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", msg, err)
		}
		return nil, errors.New(msg)
	}
	return pods, nil
}

// changedReplicaSet is a ReplicaSet of the Deployment (one of rss, those
// it controls) whose pod template bears an annotation under the
// implementation's prefix that the Deployment's template does not: the
// implementation was sent its CREATE and changed the template (R2.6). The
// Deployment's controller then never finds the ReplicaSet of its template
// (it compares them), makes another, and never settles. Nil when there is
// none.
func (s *Scenario) changedReplicaSet(deployment *unstructured.Unstructured, rss []unstructured.Unstructured) *ObjectChanged {
	own, _, _ := unstructured.NestedStringMap(deployment.Object, "spec", "template", "metadata", "annotations")
	wantSpec, _, _ := unstructured.NestedFieldNoCopy(deployment.Object, "spec", "template", "spec")
	for i := range rss {
		rs := &rss[i]
		annotations, _, _ := unstructured.NestedStringMap(rs.Object, "spec", "template", "metadata", "annotations")
		var diffs []valuediff.Difference
		for _, k := range slices.Sorted(maps.Keys(annotations)) {
			if _, ok := own[k]; !ok && strings.HasPrefix(k, s.World().AnnotationPrefix) {
				diffs = append(diffs, valuediff.Difference{Path: "spec.template.metadata.annotations[" + k + "]", Want: valuediff.Absent, Got: fmt.Sprintf("%q", annotations[k])})
			}
		}
		if len(diffs) == 0 {
			continue
		}
		gotSpec, _, _ := unstructured.NestedFieldNoCopy(rs.Object, "spec", "template", "spec")
		diffs = append(diffs, valuediff.Values("spec.template.spec", wantSpec, gotSpec)...)
		return &ObjectChanged{Kind: "ReplicaSet", Name: rs.GetName(), MadeBy: fmt.Sprintf("Deployment %q", deployment.GetName()), Differences: diffs}
	}
	return nil
}

// OwnedPodsShouldBe waits as WaitForPods, then compares each pod with the
// expected one.
func (s *Scenario) OwnedPodsShouldBe(ctx context.Context, n int, kind, name string, src manifest.Source, content string) error {
	gvk, _, err := s.kindOf(kind)
	if err != nil {
		return err
	}
	want, err := s.expected(src, content, s.namespaceOf(gvk.Kind, name))
	if err != nil {
		return err
	}
	pods, err := s.WaitForPods(ctx, n, kind, name)
	if err != nil {
		return err
	}
	var (
		errs   []error
		differ int
		made   *corev1.Pod // from the template, read at the first pod that differs
	)
	for i := range pods {
		if err := s.Compare(ctx, want, &pods[i]); err != nil {
			differ++
			errs = append(errs, fmt.Errorf("pod %s:\n%w\n", pods[i].Name, err))
			if made == nil {
				if made, err = s.templatePod(ctx, kind, name); err != nil {
					continue // the pod's differences say enough
				}
			}
			if lost := lostFromTemplate(made, &pods[i]); lost != nil {
				errs = append(errs, lost)
			}
		}
	}
	if differ > 0 {
		// Wrapped, so that callers can read each pod's differences.
		return fmt.Errorf("%d of %d pods differ:\n%w", differ, n, errors.Join(errs...))
	}
	return nil
}

// LostOwn is a workload's pod that lacks what its template gave it: the
// implementation removed some of the pod's own items or fields (what R4.4
// forbids, whatever a profile declares), where no model of the pod's
// admission says so, the scenario having submitted the workload, not the
// pod.
type LostOwn struct {
	Pod  string
	Lost []string
}

func (e *LostOwn) Error() string {
	return fmt.Sprintf("pod %s lacks what its template gave it: %s", e.Pod, strings.Join(e.Lost, ", "))
}

// templatePod is the pod the workload's controller makes from its
// template now, before admission.
func (s *Scenario) templatePod(ctx context.Context, kind, name string) (*corev1.Pod, error) {
	owner, _, _, err := s.object(ctx, kind, name)
	if err != nil {
		return nil, err
	}
	return s.controllerPod(owner)
}

// lostFromTemplate is a *LostOwn when pod lacks an item or a field of
// made, the pod its workload's controller makes from the template before
// admission; nil when it lacks none.
func lostFromTemplate(made, pod *corev1.Pod) *LostOwn {
	lost := slices.Concat(compare.LostItems(defaults.Pod(made), pod), compare.LostFields(made, pod))
	if len(lost) == 0 {
		return nil
	}
	return &LostOwn{Pod: pod.Name, Lost: lost}
}

// controllerPod is the pod a workload's controller makes from its template
// (manifest.ControllerPod), before admission.
func (s *Scenario) controllerPod(owner *unstructured.Unstructured) (*corev1.Pod, error) {
	obj, err := s.World().Scheme.New(owner.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(owner.Object, obj); err != nil {
		return nil, err
	}
	template, ok := manifest.PodTemplate(obj)
	if !ok {
		return nil, fmt.Errorf("%s has no pod template", owner.GetKind())
	}
	return manifest.ControllerPod(owner, owner.GroupVersionKind(), template), nil
}

// refusedPods is the error of a workload whose controller fails to create
// its pods: the API server's own answer to a dry-run create of the pod
// the controller makes from the template, so that what refused it (the
// implementation, or the API server's validation) is in the error's
// status (admit.Denied), not only in the condition's words; the
// condition's message when the dry run is admitted now.
func (s *Scenario) refusedPods(ctx context.Context, owner *unstructured.Unstructured, condition string) error {
	pod, err := s.controllerPod(owner)
	if err != nil {
		return fmt.Errorf("the implementation refused its pods: %s", condition)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return fmt.Errorf("the implementation refused its pods: %s", condition)
	}
	if _, err := s.Objects().Create(ctx, backend.Pods, &unstructured.Unstructured{Object: u}, backend.CreateOptions{DryRun: true}); err != nil {
		return fmt.Errorf("the implementation refused its pods: %w", err)
	}
	return fmt.Errorf("the implementation refused its pods: %s", condition)
}

// failedCreate is the message of a workload's ReplicaFailure condition
// when its controller fails to create pods (FailedCreate: an admission
// webhook denied them — a profile may declare conflicts: reject — or the
// API server refused them), so that the wait ends with the cause instead
// of a timeout.
func failedCreate(owner *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(owner.Object, "status", "conditions")
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		if m["type"] == "ReplicaFailure" && m["status"] == "True" && m["reason"] == "FailedCreate" {
			msg, _ := m["message"].(string)
			return msg
		}
	}
	return ""
}
