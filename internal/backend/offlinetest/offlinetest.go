// Package offlinetest holds what tests of the offline backend and of the
// scenario API share: a World on the offline backend with the reference
// module, and objects to create in it.
package offlinetest

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
)

// Start starts a World on the offline backend with the reference module,
// stopped when the test ends.
func Start(t *testing.T) *harness.World {
	t.Helper()
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatalf("unable to start the offline backend: %v", err)
	}
	t.Cleanup(func() {
		if err := w.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return w
}

// Unstructured converts obj for the backend's Create.
func Unstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// Pod is a pod labelled app=web with one container.
func Pod(ns, name, generateName string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, GenerateName: generateName, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
	}
}
