package module

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// UIDResolvingRecorder wraps an EventRecorder for admission-time events.
//
// At admission a pod has no UID yet, and `kubectl describe pod` lists only the
// events whose involvedObject.uid is the pod's. So an event about a pod
// reference without a UID is held back until the pod is stored, then recorded
// with its UID. If the pod does not appear within Timeout (e.g. a later
// admission step refused it), the event is recorded without a UID: still
// listed by `kubectl get events`. Other events pass straight through.
//
// Each held-back event waits in a goroutine of its own; Close waits for them
// all (cancel Context first to have them recorded at once, without a UID)
// and drops every event after: an admission once the module has stopped (a
// backend's controller still creating pods as the cluster stops) records
// nothing through a broadcaster that is shut down.
type UIDResolvingRecorder struct {
	record.EventRecorder
	Pods corev1client.PodsGetter
	// Timeout bounds the wait for the pod; 10s when zero.
	Timeout time.Duration
	// Context ends pending waits (they then record without a UID).
	Context context.Context

	pending sync.WaitGroup
	mu      sync.Mutex
	closed  bool
}

var _ record.EventRecorder = &UIDResolvingRecorder{}

// Event implements record.EventRecorder.
func (r *UIDResolvingRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	r.record(object, func(o runtime.Object) { r.EventRecorder.Event(o, eventtype, reason, message) })
}

// Eventf implements record.EventRecorder.
func (r *UIDResolvingRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...interface{}) {
	r.record(object, func(o runtime.Object) { r.EventRecorder.Eventf(o, eventtype, reason, messageFmt, args...) })
}

// AnnotatedEventf implements record.EventRecorder.
func (r *UIDResolvingRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...interface{}) {
	r.record(object, func(o runtime.Object) {
		r.EventRecorder.AnnotatedEventf(o, annotations, eventtype, reason, messageFmt, args...)
	})
}

// record emits an event now, or once its pod is stored; nothing once the
// recorder is closed.
func (r *UIDResolvingRecorder) record(object runtime.Object, emit func(runtime.Object)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if ref, ok := r.unresolvedPod(object); ok {
		r.pending.Go(func() { emit(r.resolve(ref)) })
		return
	}
	emit(object)
}

// Close returns when every held-back event has been recorded; events
// recorded after it are dropped.
func (r *UIDResolvingRecorder) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.pending.Wait()
}

func (r *UIDResolvingRecorder) unresolvedPod(object runtime.Object) (*corev1.ObjectReference, bool) {
	ref, ok := object.(*corev1.ObjectReference)
	if !ok || ref.Kind != "Pod" || ref.UID != "" || ref.Name == "" || r.Pods == nil {
		return nil, false
	}
	return ref.DeepCopy(), true
}

// resolve waits for the pod to be stored and returns the reference with its
// UID, or the reference unchanged when the pod does not appear in time. It
// watches the pod's name rather than polling: the watch is opened first and
// a Get made then, so that a pod stored in between is not missed.
func (r *UIDResolvingRecorder) resolve(ref *corev1.ObjectReference) *corev1.ObjectReference {
	ctx := r.Context
	if ctx == nil {
		ctx = context.Background()
	}
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pods := r.Pods.Pods(ref.Namespace)
	w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", ref.Name).String()})
	if err != nil {
		return ref
	}
	defer w.Stop()
	if pod, err := pods.Get(ctx, ref.Name, metav1.GetOptions{}); err == nil {
		ref.UID = pod.UID
		return ref
	}
	for {
		select {
		case <-ctx.Done():
			return ref
		case ev, open := <-w.ResultChan():
			if !open {
				return ref
			}
			if pod, ok := ev.Object.(*corev1.Pod); ok && pod.Name == ref.Name && ev.Type != watch.Deleted {
				ref.UID = pod.UID
				return ref
			}
		}
	}
}
