package backend

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resources the harness reads by name.
var (
	Pods        = corev1.SchemeGroupVersion.WithResource("pods")
	Events      = corev1.SchemeGroupVersion.WithResource("events")
	ConfigMaps  = corev1.SchemeGroupVersion.WithResource("configmaps")
	Namespaces  = corev1.SchemeGroupVersion.WithResource("namespaces")
	ReplicaSets = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)

// Labels the harness puts on the namespaces it creates.
const (
	// RunLabel carries the run id on every namespace of a run.
	RunLabel = "presetsim.dev/run"
	// AdmissionLabel carries the run id on the namespaces the
	// implementation under test is registered for (not on the defaulting
	// namespace).
	AdmissionLabel = "presetsim.dev/admission"
	// LogicalLabel carries the logical name of a scenario namespace.
	LogicalLabel = "presetsim.dev/logical"
)

// ToPod converts an object a cluster returned to a Pod.
func ToPod(u *unstructured.Unstructured) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pod); err != nil {
		return nil, fmt.Errorf("unable to read pod %s: %w", u.GetName(), err)
	}
	return pod, nil
}
