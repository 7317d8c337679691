package scenario

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWithoutControllerFields(t *testing.T) {
	controlled := func(kind string) metav1.ObjectMeta {
		yes := true
		return metav1.ObjectMeta{
			Labels:          map[string]string{"app": "a", "pod-template-hash": "abc", "statefulset.kubernetes.io/pod-name": "web-1"},
			OwnerReferences: []metav1.OwnerReference{{Kind: kind, Name: "w", Controller: &yes}},
		}
	}
	dsAffinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}
	dsToleration := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	userToleration := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "agents", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name      string
		want, got *corev1.Pod
		expect    *corev1.Pod
	}{
		{
			name:   "pod without controller is unchanged",
			want:   &corev1.Pod{},
			got:    &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"pod-template-hash": "abc"}}},
			expect: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"pod-template-hash": "abc"}}},
		},
		{
			name:   "controller labels go unless expected",
			want:   &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"statefulset.kubernetes.io/pod-name": "web-1"}}},
			got:    &corev1.Pod{ObjectMeta: controlled("ReplicaSet")},
			expect: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a", "statefulset.kubernetes.io/pod-name": "web-1"}, OwnerReferences: controlled("ReplicaSet").OwnerReferences}},
		},
		{
			name:   "StatefulSet hostname and subdomain go unless expected",
			want:   &corev1.Pod{Spec: corev1.PodSpec{Subdomain: "web"}},
			got:    &corev1.Pod{ObjectMeta: controlled("StatefulSet"), Spec: corev1.PodSpec{Hostname: "web-1", Subdomain: "web"}},
			expect: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}, OwnerReferences: controlled("StatefulSet").OwnerReferences}, Spec: corev1.PodSpec{Subdomain: "web"}},
		},
		{
			name: "DaemonSet affinity and tolerations go, the template's stay",
			want: &corev1.Pod{},
			got: &corev1.Pod{ObjectMeta: controlled("DaemonSet"), Spec: corev1.PodSpec{
				Affinity: dsAffinity, Tolerations: []corev1.Toleration{userToleration, dsToleration},
			}},
			expect: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}, OwnerReferences: controlled("DaemonSet").OwnerReferences},
				Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{userToleration}}},
		},
		{
			name:   "a DaemonSet toleration the expected pod states is kept",
			want:   &corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{dsToleration}}},
			got:    &corev1.Pod{ObjectMeta: controlled("DaemonSet"), Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{dsToleration}}},
			expect: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}, OwnerReferences: controlled("DaemonSet").OwnerReferences}, Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{dsToleration}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.got.DeepCopy()
			out := withoutControllerFields(tt.want, tt.got)
			if d := cmp.Diff(tt.expect, out); d != "" {
				t.Errorf("withoutControllerFields (-want +got):\n%s", d)
			}
			if d := cmp.Diff(before, tt.got); d != "" {
				t.Errorf("the input was modified:\n%s", d)
			}
		})
	}
}
