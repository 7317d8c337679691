package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// PodTemplate is the pod template of a workload (Deployment, ReplicaSet,
// StatefulSet, DaemonSet, Job, CronJob, ReplicationController); false for
// other objects and for a ReplicationController without one.
func PodTemplate(obj runtime.Object) (*corev1.PodTemplateSpec, bool) {
	switch w := obj.(type) {
	case *appsv1.Deployment:
		return &w.Spec.Template, true
	case *appsv1.ReplicaSet:
		return &w.Spec.Template, true
	case *appsv1.StatefulSet:
		return &w.Spec.Template, true
	case *appsv1.DaemonSet:
		return &w.Spec.Template, true
	case *batchv1.Job:
		return &w.Spec.Template, true
	case *batchv1.CronJob:
		return &w.Spec.JobTemplate.Spec.Template, true
	case *corev1.ReplicationController:
		return w.Spec.Template, w.Spec.Template != nil
	}
	return nil, false
}

// ControllerPod is the pod a controller makes from its template, before
// admission: named from the owner's name (generateName "<owner>-"), in its
// namespace, with the template's labels, annotations and spec, and a
// controller reference to the owner (with its UID when it has one).
func ControllerPod(owner metav1.Object, gvk schema.GroupVersionKind, t *corev1.PodTemplateSpec) *corev1.Pod {
	yes := true
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: owner.GetName() + "-",
			Namespace:    owner.GetNamespace(),
			Labels:       t.Labels,
			Annotations:  t.Annotations,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Name: owner.GetName(), UID: owner.GetUID(),
				Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		Spec: *t.Spec.DeepCopy(),
	}
}
