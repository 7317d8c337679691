package fuzz

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/presets/conflict"
)

// TestCaseEvents: a case counts the conflict events about its pod and its
// owner, by UID, or by kind and name when the event has no UID; not those
// about another case's objects that had the namespace before, nor those
// about the pod its history created again under another name.
func TestCaseEvents(t *testing.T) {
	objects := caseObjects{
		uids: []types.UID{"pod-uid", "owner-uid"},
		refs: []corev1.ObjectReference{{Kind: "Pod", Name: "website"}, {Kind: "ConfigMap", Name: OwnerName}},
	}
	event := func(kind, name string, uid types.UID, count int32) corev1.Event {
		return corev1.Event{
			InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name, UID: uid},
			Reason:         conflict.Reason, Type: corev1.EventTypeWarning, Message: "Conflict on pod preset a", Count: count,
		}
	}
	for _, tc := range []struct {
		name  string
		event corev1.Event
		want  int
	}{
		{"the pod, by UID", event("Pod", "website", "pod-uid", 1), 1},
		{"the owner, by UID, aggregated", event("ConfigMap", OwnerName, "owner-uid", 3), 3},
		{"the pod, without UID", event("Pod", "website", "", 0), 1},
		{"the owner, without UID", event("ConfigMap", OwnerName, "", 1), 1},
		{"another case's pod of the same name", event("Pod", "website", "other-uid", 1), 0},
		{"the pod created again, without UID", event("Pod", "website"+AgainSuffix, "", 1), 0},
		{"an earlier case's pod, without UID", event("Pod", "website.edge-again", "", 1), 0},
		{"another kind of the pod's name, without UID", event("ReplicaSet", "website", "", 1), 0},
		{"another reason", func() corev1.Event { e := event("Pod", "website", "pod-uid", 1); e.Reason = "Scheduled"; return e }(), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(objects.conflictEvents([]corev1.Event{tc.event})); got != tc.want {
				t.Errorf("%d events counted, want %d", got, tc.want)
			}
		})
	}
}
