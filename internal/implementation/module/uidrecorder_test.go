package module

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

// refRecorder captures the object reference of each event.
type refRecorder struct{ refs chan *corev1.ObjectReference }

func (r *refRecorder) Event(o runtime.Object, _, _, _ string) { r.refs <- o.(*corev1.ObjectReference) }
func (r *refRecorder) Eventf(o runtime.Object, _, _, _ string, _ ...interface{}) {
	r.refs <- o.(*corev1.ObjectReference)
}
func (r *refRecorder) AnnotatedEventf(o runtime.Object, _ map[string]string, _, _, _ string, _ ...interface{}) {
	r.refs <- o.(*corev1.ObjectReference)
}

func TestUIDResolvingRecorder(t *testing.T) {
	stored := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "website", Namespace: "ns", UID: "uid-1"}}
	tests := []struct {
		name    string
		ref     *corev1.ObjectReference
		wantUID types.UID
	}{
		{name: "pod stored later gets its UID", ref: &corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "website"}, wantUID: "uid-1"},
		{name: "pod never stored is recorded without UID", ref: &corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "refused"}, wantUID: ""},
		{name: "reference with a UID passes through", ref: &corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "website", UID: "given"}, wantUID: "given"},
		{name: "owner reference passes through", ref: &corev1.ObjectReference{Kind: "ReplicaSet", Namespace: "ns", Name: "frontend", UID: "rs"}, wantUID: "rs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewSimpleClientset()
			inner := &refRecorder{refs: make(chan *corev1.ObjectReference, 1)}
			r := &UIDResolvingRecorder{EventRecorder: inner, Pods: client.CoreV1(), Timeout: 300 * time.Millisecond, Context: context.Background()}
			r.Event(tt.ref, corev1.EventTypeWarning, "PodPresetConflict", "message")
			// The pod is stored only after admission, i.e. after the event.
			if _, err := client.CoreV1().Pods("ns").Create(context.Background(), stored, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-inner.refs:
				if got.UID != tt.wantUID {
					t.Errorf("UID %q, want %q", got.UID, tt.wantUID)
				}
				if got.Name != tt.ref.Name || got.Kind != tt.ref.Kind {
					t.Errorf("reference %s/%s, want %s/%s", got.Kind, got.Name, tt.ref.Kind, tt.ref.Name)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no event recorded")
			}
		})
	}
}
