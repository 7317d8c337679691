package rollout

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

func TestHandle(t *testing.T) {
	template := func(app string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}}}
	}
	objects := func(enabled string) []runtime.Object {
		return []runtime.Object{
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: map[string]string{EnableLabel: enabled}}},
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: appsv1.DeploymentSpec{Template: template("web")}},
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "ns"}, Spec: appsv1.DeploymentSpec{Template: template("other")}},
			&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"}, Spec: appsv1.StatefulSetSpec{Template: template("web")}},
			&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns"}, Spec: appsv1.DaemonSetSpec{Template: template("web")}},
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "elsewhere"}, Spec: appsv1.DeploymentSpec{Template: template("web")}},
		}
	}
	preset := &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: "allow-database", Namespace: "ns"},
		Spec:       v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	const cause = "PodPreset allow-database created at 2026-11-21T12:00:00Z"
	tests := []struct {
		name    string
		enabled string
		want    map[string]string // workload → expected CauseAnnotation
	}{
		{name: "enabled: selected workloads restart", enabled: "true",
			want: map[string]string{"Deployment ns/web": cause, "StatefulSet ns/db": cause, "DaemonSet ns/agent": cause, "Deployment ns/other": "", "Deployment elsewhere/web": ""}},
		{name: "label not true: nothing restarts", enabled: "yes",
			want: map[string]string{"Deployment ns/web": "", "StatefulSet ns/db": "", "DaemonSet ns/agent": "", "Deployment ns/other": "", "Deployment elsewhere/web": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewSimpleClientset(objects(tt.enabled)...)
			c := &Controller{client: client, now: func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }}
			if err := c.handle(context.Background(), change{preset: preset, action: "created"}); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			got := map[string]string{}
			for _, ns := range []string{"ns", "elsewhere"} {
				ds, _ := client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
				for _, d := range ds.Items {
					got["Deployment "+ns+"/"+d.Name] = d.Spec.Template.Annotations[CauseAnnotation]
				}
				ss, _ := client.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{})
				for _, s := range ss.Items {
					got["StatefulSet "+ns+"/"+s.Name] = s.Spec.Template.Annotations[CauseAnnotation]
				}
				dss, _ := client.AppsV1().DaemonSets(ns).List(ctx, metav1.ListOptions{})
				for _, d := range dss.Items {
					got["DaemonSet "+ns+"/"+d.Name] = d.Spec.Template.Annotations[CauseAnnotation]
				}
			}
			for k, want := range tt.want {
				if got[k] != want {
					t.Errorf("%s: %s = %q, want %q", k, CauseAnnotation, got[k], want)
				}
			}
		})
	}
}
