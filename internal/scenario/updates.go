package scenario

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/compare/valuediff"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/rule"
)

// ephemeralContainers is the pod subresource kubectl debug updates.
const ephemeralContainers = "ephemeralcontainers"

// podUpdate is an UPDATE of a stored pod that a step made: the pod as sent,
// and as the API server stored it or its refusal.
type podUpdate struct {
	subresource  string
	sent, stored *corev1.Pod
	err          error
}

// SetPodMetadata sets a label or an annotation (field "label" or
// "annotation") of a stored pod, as kubectl label and kubectl annotate do:
// an UPDATE of the pod, which no implementation may change (R2.1). Its
// outcome is kept for PodShouldBeAsUpdated; a refusal does not fail the step.
func (s *Scenario) SetPodMetadata(ctx context.Context, name, field, key, value string) error {
	return s.updatePod(ctx, name, "", func(pod *corev1.Pod) error {
		switch field {
		case "label":
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels[key] = value
		case "annotation":
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			for k, v := range s.w.Profile.Annotations(map[string]string{key: value}) {
				pod.Annotations[k] = v
			}
		default:
			return fmt.Errorf("a pod's %s cannot be set: label or annotation", field)
		}
		return nil
	})
}

// AddEphemeralContainer adds the DocString's container to a stored pod
// through its ephemeralcontainers subresource, as kubectl debug does: no
// implementation may inject anything into it (R3.2). Its outcome is kept
// for PodShouldBeAsUpdated; a refusal does not fail the step.
func (s *Scenario) AddEphemeralContainer(ctx context.Context, name string, src manifest.Source, content string) error {
	var c corev1.EphemeralContainer
	if err := yaml.UnmarshalStrict([]byte(content), &c); err != nil {
		return fmt.Errorf("%s:%d: the ephemeral container: %w", src.File, src.Line, err)
	}
	if c.Name == "" || c.Image == "" {
		return fmt.Errorf("%s:%d: the ephemeral container needs a name and an image", src.File, src.Line)
	}
	return s.AddEphemeral(ctx, name, c)
}

// AddEphemeral is AddEphemeralContainer with the container given.
func (s *Scenario) AddEphemeral(ctx context.Context, name string, c corev1.EphemeralContainer) error {
	if _, ok := s.cluster.(backend.Subresources); !ok {
		return &backend.UnsupportedError{Backend: s.w.Backend, Reason: "it serves no pods/ephemeralcontainers subresource"}
	}
	return s.updatePod(ctx, name, ephemeralContainers, func(pod *corev1.Pod) error {
		pod.Spec.EphemeralContainers = append(pod.Spec.EphemeralContainers, c)
		return nil
	})
}

// updatePod reads a stored pod, changes it and updates it (or its
// subresource), keeping the outcome.
func (s *Scenario) updatePod(ctx context.Context, name, subresource string, change func(*corev1.Pod) error) error {
	logical := s.podNamespace(name)
	var (
		sent, current *corev1.Pod
		stored        *unstructured.Unstructured
		sentOnce      bool // the last attempt got as far as the update
	)
	// As kubectl: read, change, update, and again when something else
	// (a scheduler, a kubelet) updated the pod meanwhile.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sentOnce = false
		var err error
		if current, err = s.getPod(ctx, logical, name); err != nil {
			return err
		}
		sent = current.DeepCopy()
		if err := change(sent); err != nil {
			return err
		}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sent)
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetAPIVersion("v1")
		u.SetKind("Pod")
		sentOnce = true
		if subresource == "" {
			stored, err = s.cluster.Update(ctx, backend.Pods, u, nil)
		} else {
			stored, err = s.cluster.(backend.Subresources).UpdateSubresource(ctx, backend.Pods, u, subresource)
		}
		return err
	})
	if !sentOnce {
		return err // the pod could not be read, or the change made
	}
	up := &podUpdate{subresource: subresource, sent: sent, err: err}
	if err == nil {
		if up.stored, err = backend.ToPod(stored); err != nil {
			return err
		}
	}
	if s.updates == nil {
		s.updates = map[objectKey]*podUpdate{}
	}
	s.updates[objectKey{"Pod", logical, name}] = up
	return nil
}

// PodShouldBeAsUpdated checks the last update of the pod a step made: the
// API server stored what was sent, which no implementation changed — its
// labels, annotations and spec for an UPDATE (R2.1), the items of its
// ephemeral containers, once defaulted, for the subresource (R3.2). The
// error is an *UpdateChanged.
func (s *Scenario) PodShouldBeAsUpdated(ctx context.Context, name string) error {
	up, ok := s.updates[objectKey{"Pod", s.podNamespace(name), name}]
	if !ok {
		return fmt.Errorf("no step of this scenario updated the pod %q", name)
	}
	changed := &UpdateChanged{Pod: name, Subresource: up.subresource}
	if up.err != nil {
		changed.Refused = errors.New(s.logical(up.err.Error()))
		return changed
	}
	if up.subresource == ephemeralContainers {
		want := defaults.Pod(up.sent)
		for i, w := range want.Spec.EphemeralContainers {
			path := fmt.Sprintf("spec.ephemeralContainers[%s]", w.Name)
			if i >= len(up.stored.Spec.EphemeralContainers) {
				changed.Differences = append(changed.Differences, valuediff.Difference{Path: path, Want: "the container", Got: valuediff.Absent})
				continue
			}
			g := up.stored.Spec.EphemeralContainers[i]
			changed.Differences = append(changed.Differences, valuediff.Values(path+".env", toJSON(w.Env), toJSON(g.Env))...)
			changed.Differences = append(changed.Differences, valuediff.Values(path+".envFrom", toJSON(w.EnvFrom), toJSON(g.EnvFrom))...)
			changed.Differences = append(changed.Differences, valuediff.Values(path+".volumeMounts", toJSON(w.VolumeMounts), toJSON(g.VolumeMounts))...)
		}
	} else {
		for _, d := range []struct {
			path      string
			want, got any
		}{
			{"metadata.labels", up.sent.Labels, up.stored.Labels},
			{"metadata.annotations", up.sent.Annotations, up.stored.Annotations},
			{"spec", up.sent.Spec, up.stored.Spec},
		} {
			changed.Differences = append(changed.Differences, valuediff.Values(d.path, toJSON(d.want), toJSON(d.got))...)
		}
	}
	if len(changed.Differences) > 0 {
		return changed
	}
	return nil
}

// toJSON is v as encoding/json would read it back, so that values compare
// as the API holds them (an empty map and none alike, as omitempty writes).
func toJSON(v any) any {
	b, err := yaml.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := yaml.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

// UpdateChanged is a pod's update that the API server did not store as
// sent: refused, or changed on the way.
type UpdateChanged struct {
	Pod string
	// Subresource is "ephemeralcontainers" for kubectl debug's update, ""
	// for an UPDATE of the pod.
	Subresource string
	// Refused is the API server's refusal, nil when it stored the pod.
	Refused     error
	Differences []valuediff.Difference
}

func (e *UpdateChanged) what() string {
	if e.Subresource == ephemeralContainers {
		return fmt.Sprintf("the ephemeral container added to pod %q", e.Pod)
	}
	return fmt.Sprintf("the update of pod %q", e.Pod)
}

func (e *UpdateChanged) Error() string {
	if e.Refused != nil {
		return fmt.Sprintf("%s was refused (an implementation that leaves updates alone cannot make one invalid): %v", e.what(), e.Refused)
	}
	lines := make([]string, len(e.Differences))
	for i, d := range e.Differences {
		lines[i] = d.String()
	}
	return fmt.Sprintf("%s was changed on the way (want as sent, got as stored):\n%s", e.what(), strings.Join(lines, "\n"))
}

// Rules are the rules the change breaks: R3.2 for an ephemeral container,
// R2.1 for an UPDATE of the pod.
func (e *UpdateChanged) Rules() []rule.ID {
	if e.Subresource == ephemeralContainers {
		return []rule.ID{rule.R3_2}
	}
	return []rule.ID{rule.R2_1}
}
