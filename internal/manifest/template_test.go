package manifest

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestPodTemplate(t *testing.T) {
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}}
	tests := []struct {
		name string
		obj  runtime.Object
		want bool
	}{
		{"a Deployment", &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: template}}, true},
		{"a CronJob's job template", &batchv1.CronJob{Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template}}}}, true},
		{"a ReplicationController without one", &corev1.ReplicationController{}, false},
		{"a ConfigMap", &corev1.ConfigMap{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := PodTemplate(tt.obj)
			if ok != tt.want || ok && got.Labels["app"] != "web" {
				t.Errorf("PodTemplate = %v, %v; want the template: %v", got, ok, tt.want)
			}
		})
	}
}

func TestControllerPod(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5f9", Namespace: "shop", UID: "u1"},
		Spec: appsv1.ReplicaSetSpec{Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}}}
	pod := ControllerPod(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), &rs.Spec.Template)
	owner := metav1.GetControllerOf(pod)
	switch {
	case pod.GenerateName != "web-5f9-" || pod.Namespace != "shop" || pod.Labels["app"] != "web":
		t.Errorf("metadata %+v", pod.ObjectMeta)
	case owner == nil || owner.Kind != "ReplicaSet" || owner.APIVersion != "apps/v1" || owner.UID != "u1" || owner.BlockOwnerDeletion == nil:
		t.Errorf("controller reference %+v", owner)
	case len(pod.Spec.Containers) != 1 || &pod.Spec.Containers[0] == &rs.Spec.Template.Spec.Containers[0]:
		t.Errorf("the spec is not a copy of the template's: %+v", pod.Spec)
	}
}
