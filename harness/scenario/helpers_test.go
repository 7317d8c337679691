package scenario

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend/offline"
)

func startOfflineWorld(t *testing.T) *harness.World {
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

func toUnstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func testPod(ns, name, generateName string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, GenerateName: generateName, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
	}
}
