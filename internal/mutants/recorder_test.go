package mutants

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
)

// TestFilteredRecorder: an event the filter refuses is dropped whichever
// of the recorder's methods records it.
func TestFilteredRecorder(t *testing.T) {
	fake := record.NewFakeRecorder(10)
	r := filteredRecorder{EventRecorder: fake, keep: func(ref *corev1.ObjectReference) bool { return ref.Kind != "Pod" }}
	pod := &corev1.ObjectReference{Kind: "Pod", Name: "p"}
	owner := &corev1.ObjectReference{Kind: "ReplicaSet", Name: "r"}
	for _, ref := range []*corev1.ObjectReference{pod, owner} {
		r.Event(ref, corev1.EventTypeWarning, "R", "m")
		r.Eventf(ref, corev1.EventTypeWarning, "R", "%s", "m")
		r.AnnotatedEventf(ref, map[string]string{"a": "b"}, corev1.EventTypeWarning, "R", "%s", "m")
	}
	if n := len(fake.Events); n != 3 {
		t.Errorf("%d events recorded, want the owner's 3", n)
	}
}
