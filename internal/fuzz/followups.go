package fuzz

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/scenario"
)

// FollowUpPercent is the share of cases that send, once the pod is
// created, the requests an implementation must leave alone (FollowUp).
const FollowUpPercent = 25

// FollowUp is what a case sends after its pod's creation: requests that an
// implementation's registration may send it, and that it must leave as
// they are (R5.4 of the specification) — an UPDATE of the pod setting a
// label (R2.1), an ephemeral container added to it (R3.2), and the CREATE
// of a ReplicaSet of no replicas whose template is the pod (R2.6).
type FollowUp struct {
	// Label is the key and value the UPDATE sets: a label one of the
	// case's presets selects by, when one does, so that an implementation
	// that mutates UPDATEs would find a preset newly selecting the pod.
	Label [2]string
}

// DebugContainer is the ephemeral container a follow-up adds.
var DebugContainer = corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox"}}

// FollowUpReplicaSet names the ReplicaSet a follow-up creates.
const FollowUpReplicaSet = "follow-up"

// followUp gives a case, in FollowUpPercent of the cases, its follow-up.
// It draws from a source of its own, so that the rest of every case is
// what the same seed made before.
func followUp(seed uint64, c *Case) {
	g := gen{rand.New(rand.NewPCG(seed^0xf0110, seed))}
	if !g.chance(FollowUpPercent) {
		return
	}
	var selected [][2]string
	for _, p := range c.Presets {
		for k, v := range p.Spec.Selector.MatchLabels {
			// An invalid preset's selector may hold a key no pod can
			// have: the API server would refuse the label, whatever the
			// implementation.
			if len(validation.IsQualifiedName(k))+len(validation.IsValidLabelValue(v)) > 0 {
				continue
			}
			if c.Pod.Labels[k] != v {
				selected = append(selected, [2]string{k, v})
			}
		}
	}
	slices.SortFunc(selected, func(a, b [2]string) int { return strings.Compare(a[0]+"="+a[1], b[0]+"="+b[1]) })
	f := &FollowUp{Label: [2]string{g.pick(labelKeys), g.pick(labelValues)}}
	if len(selected) > 0 {
		f.Label = selected[g.n(len(selected))]
	}
	c.FollowUp = f
}

// followUps sends a created pod's follow-up (pod is the pod as created,
// the case's Observed.Pod the pod as submitted) and returns what the API
// server did not store as sent (*scenario.UpdateChanged,
// *scenario.ObjectChanged). A request the backend cannot serve (no
// pods/ephemeralcontainers subresource) is not sent.
func (r runner) followUps(ctx context.Context, t *trial, f *FollowUp, pod *corev1.Pod) ([]error, error) {
	submitted := t.obs.Pod
	var changed []error
	judge := func(err error) error {
		var u *scenario.UpdateChanged
		var o *scenario.ObjectChanged
		switch {
		case err == nil:
		case errors.As(err, &u), errors.As(err, &o):
			changed = append(changed, err)
		default:
			return err
		}
		return nil
	}
	t.admissions++
	if err := t.s.SetPodMetadata(ctx, pod.Name, "label", f.Label[0], f.Label[1]); err != nil {
		return nil, fmt.Errorf("the follow-up UPDATE: %w", err)
	}
	if err := judge(t.s.PodShouldBeAsUpdated(ctx, pod.Name)); err != nil {
		return nil, err
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		// An API server takes no ephemeral container into a mirror pod.
	} else if err := t.s.AddEphemeral(ctx, pod.Name, DebugContainer); err != nil {
		if _, unsupported := backend.IsUnsupported(err); !unsupported {
			return nil, fmt.Errorf("the follow-up ephemeral container: %w", err)
		}
	} else {
		t.admissions++
		if err := judge(t.s.PodShouldBeAsUpdated(ctx, pod.Name)); err != nil {
			return nil, err
		}
	}
	rs := FollowUpReplicaSetOf(submitted)
	if err := t.s.CreatableUnadmitted(ctx, rs); err != nil {
		// The template is not one a ReplicaSet may have, whatever the
		// implementation: this follow-up is not sent.
		return changed, nil
	}
	t.admissions++
	if _, err := t.s.CreateObject(ctx, rs, nil); err != nil {
		return append(changed, &scenario.ObjectChanged{Kind: "ReplicaSet", Name: rs.Name, Refused: err}), nil
	}
	t.replicaSet = true
	if err := judge(t.s.ObjectAsSubmitted(ctx, "ReplicaSet", rs.Name)); err != nil {
		return nil, err
	}
	return changed, nil
}

// FollowUpReplicaSetOf is the ReplicaSet of no replicas whose template is
// the case's pod as submitted.
func FollowUpReplicaSetOf(pod *corev1.Pod) *appsv1.ReplicaSet {
	labels := map[string]string{"presetsim.dev/follow-up": "true"}
	maps.Copy(labels, pod.Labels)
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: maps.Clone(pod.Annotations)}, Spec: *pod.Spec.DeepCopy()}
	// What a ReplicaSet's template may not hold: a node name, a restart
	// policy other than Always, an active deadline.
	template.Spec.NodeName = ""
	template.Spec.RestartPolicy = corev1.RestartPolicyAlways
	template.Spec.ActiveDeadlineSeconds = nil
	zero := int32(0)
	return &appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: FollowUpReplicaSet, Namespace: pod.Namespace},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &zero,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"presetsim.dev/follow-up": "true"}},
			Template: template,
		},
	}
}
