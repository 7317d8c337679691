package scenario

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// execLog is a kubelet that records which containers it was told to
// finish and fails for the pods in fail.
type execLog struct {
	told []string
	fail map[string]bool
}

func (e *execLog) Logs(context.Context, string, string, string) ([]byte, error) { return nil, nil }

func (e *execLog) Exec(_ context.Context, _, pod, container string, _ []string) error {
	if e.fail[pod] {
		return errors.New("command terminated with exit code 137")
	}
	e.told = append(e.told, pod+"/"+container)
	return nil
}

func printenvPod(name string, running bool) corev1.Pod {
	state := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}
	if running {
		state = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	}
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Status:     corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "c", State: state}}},
	}
}

// TestFinishPods: a running container is told once, told again if it
// still runs after retell, and a container that could not be told is told
// at the next call; waiting containers are left for later.
func TestFinishPods(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	k := &execLog{}
	finished := map[string]time.Time{}
	steps := []struct {
		name     string
		pods     []corev1.Pod
		at       time.Duration
		fail     map[string]bool
		wantTold []string
		wantErr  bool
	}{
		{name: "the running pods are told; b's exec fails",
			pods: []corev1.Pod{printenvPod("a", true), printenvPod("b", true), printenvPod("c", false)},
			fail: map[string]bool{"b": true}, wantTold: []string{"a/c"}, wantErr: true},
		{name: "a is not told again at once; b is",
			pods: []corev1.Pod{printenvPod("a", true), printenvPod("b", true), printenvPod("c", false)},
			at:   time.Second, wantTold: []string{"b/c"}},
		{name: "c runs now",
			pods: []corev1.Pod{printenvPod("a", true), printenvPod("b", false), printenvPod("c", true)},
			at:   2 * time.Second, wantTold: []string{"c/c"}},
		{name: "a still runs after retell: told again",
			pods: []corev1.Pod{printenvPod("a", true), printenvPod("c", true)},
			at:   retell, wantTold: []string{"a/c"}},
	}
	for _, st := range steps {
		k.told, k.fail = nil, st.fail
		err := finishPods(ctx, k, st.pods, finished, start.Add(st.at))
		if (err != nil) != st.wantErr {
			t.Fatalf("%s: error = %v, want an error: %v", st.name, err, st.wantErr)
		}
		if !reflect.DeepEqual(k.told, st.wantTold) {
			t.Errorf("%s: told %v, want %v", st.name, k.told, st.wantTold)
		}
	}
}
