package model_test

import (
	"testing"

	"presetsim.dev/presetsim/presets/conflict"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
)

func preset(name, rv string, spec v1alpha1.PodPresetSpec) *v1alpha1.PodPreset {
	return &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: rv}, Spec: spec}
}

func env(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }

func envPreset(name, rv string, vars ...corev1.EnvVar) *v1alpha1.PodPreset {
	return preset(name, rv, v1alpha1.PodPresetSpec{Env: vars})
}

// pod is a pod named website with one container and one init container,
// each holding env.
func pod(containerEnv ...corev1.EnvVar) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "website", Namespace: "default", Labels: map[string]string{"app": "website"}},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox", Env: containerEnv}},
			Containers:     []corev1.Container{{Name: "website", Image: "nginx", Env: containerEnv}},
		},
	}
}

// withEnv is p with env appended to every container and init container
// named in names (all when none), and the annotations.
func withEnv(p *corev1.Pod, e []corev1.EnvVar, annotations map[string]string, only ...string) *corev1.Pod {
	p = p.DeepCopy()
	for _, list := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range list {
			if len(only) > 0 && !contains(only, list[i].Name) {
				continue
			}
			list[i].Env = append(list[i].Env, e...)
		}
	}
	p.Annotations = annotations
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func key(name string) string { return merge.AnnotationKey(name) }

func TestAdmit(t *testing.T) {
	a := envPreset("a", "10", env("A", "1"))
	b := envPreset("b", "11", env("B", "2"))
	conflicting := envPreset("c", "12", env("OWN", "preset"))
	own := env("OWN", "pod")
	conflictMsg := "Conflict on pod preset c: duplicate env OWN in container init; duplicate env OWN in container website"
	event := conflict.Event{Kind: "Pod", Name: "website", Type: "Warning", Reason: "PodPresetConflict", Message: conflictMsg}

	excluded := pod()
	excluded.Annotations = map[string]string{merge.ExcludeAnnotation: "true"}
	notExcluded := pod()
	notExcluded.Annotations = map[string]string{merge.ExcludeAnnotation: "True"}
	mirror := pod()
	mirror.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: ""}
	owned := pod(own)
	owned.Name, owned.GenerateName = "", "website-"
	owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", Controller: ptr(true)}}

	tests := []struct {
		name string
		in   model.Admission
		opts model.Options
		want []model.Outcome
	}{{
		name: "specification: both presets applied in name order",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{b, a}, Pod: pod()},
		want: []model.Outcome{{Pod: withEnv(pod(), []corev1.EnvVar{env("A", "1"), env("B", "2")}, map[string]string{key("a"): "10", key("b"): "11"}),
			Matching: []string{"a", "b"}, Applied: []string{"a", "b"}}},
	}, {
		name: "specification: a conflict applies nothing, warns, and records an event on the pod",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a, conflicting}, Pod: pod(own)},
		want: []model.Outcome{{Pod: pod(own), Matching: []string{"a", "c"}, Warnings: []string{conflictMsg}, Events: []conflict.Event{event}}},
	}, {
		name: "specification: a dry run warns but records no event",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{conflicting}, Pod: pod(own), DryRun: true},
		want: []model.Outcome{{Pod: pod(own), Matching: []string{"c"}, Warnings: []string{conflictMsg}}},
	}, {
		name: "specification: a pod without a name has the event on its controller",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{conflicting}, Pod: owned},
		want: []model.Outcome{{Pod: owned, Matching: []string{"c"}, Warnings: []string{conflictMsg},
			Events: []conflict.Event{{Kind: "ReplicaSet", Name: "web", Type: "Warning", Reason: "PodPresetConflict", Message: conflictMsg}}}},
	}, {
		name: "specification: exclude \"true\" leaves the pod alone",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a}, Pod: excluded},
		want: []model.Outcome{{Pod: excluded, Skipped: "excluded"}},
	}, {
		name: "specification: exclude \"True\" does not",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a}, Pod: notExcluded},
		want: []model.Outcome{{Pod: withEnv(notExcluded, []corev1.EnvVar{env("A", "1")}, map[string]string{merge.ExcludeAnnotation: "True", key("a"): "10"}),
			Matching: []string{"a"}, Applied: []string{"a"}}},
	}, {
		name: "specification: a mirror pod is left alone",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a}, Pod: mirror},
		want: []model.Outcome{{Pod: mirror, Skipped: "mirror"}},
	}, {
		name: "conflicts reject: refused, nothing stored",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a, conflicting}, Pod: pod(own)},
		opts: model.Options{Conflicts: model.Reject},
		want: []model.Outcome{{Refused: true, Message: conflictMsg, Matching: []string{"a", "c"}}},
	}, {
		name: "conflicts reject: without a conflict, applied as specified",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a}, Pod: pod()},
		opts: model.Options{Conflicts: model.Reject},
		want: []model.Outcome{{Pod: withEnv(pod(), []corev1.EnvVar{env("A", "1")}, map[string]string{key("a"): "10"}), Matching: []string{"a"}, Applied: []string{"a"}}},
	}, {
		name: "conflicts skip-preset: the others applied",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a, conflicting}, Pod: pod(own)},
		opts: model.Options{Conflicts: model.SkipPreset},
		want: []model.Outcome{{Pod: withEnv(pod(own), []corev1.EnvVar{env("A", "1")}, map[string]string{key("a"): "10"}),
			Matching: []string{"a", "c"}, Applied: []string{"a"}, Warnings: []string{conflictMsg}, Events: []conflict.Event{event}}},
	}, {
		name: "conflicts apply: every preset annotated, the conflicting item skipped, the pod's own kept (R4.4)",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a, preset("c", "12", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("OWN", "preset"), env("C", "3")}})}, Pod: pod(own)},
		opts: model.Options{Conflicts: model.Apply},
		want: []model.Outcome{{Pod: withEnv(pod(own), []corev1.EnvVar{env("A", "1"), env("C", "3")}, map[string]string{key("a"): "10", key("c"): "12"}),
			Matching: []string{"a", "c"}, Applied: []string{"a", "c"}, Warnings: []string{conflictMsg}, Events: []conflict.Event{event}}},
	}, {
		name: "order unspecified: both orders accepted",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a, b}, Pod: pod()},
		opts: model.Options{Order: model.Unspecified},
		want: []model.Outcome{
			{Pod: withEnv(pod(), []corev1.EnvVar{env("A", "1"), env("B", "2")}, map[string]string{key("a"): "10", key("b"): "11"}), Matching: []string{"a", "b"}, Applied: []string{"a", "b"}},
			{Pod: withEnv(pod(), []corev1.EnvVar{env("B", "2"), env("A", "1")}, map[string]string{key("a"): "10", key("b"): "11"}), Matching: []string{"b", "a"}, Applied: []string{"b", "a"}},
		},
	}, {
		name: "init containers untouched",
		in:   model.Admission{Presets: []*v1alpha1.PodPreset{a}, Pod: pod()},
		opts: model.Options{Variant: merge.Variant{InitContainersUntouched: true}},
		want: []model.Outcome{{Pod: withEnv(pod(), []corev1.EnvVar{env("A", "1")}, map[string]string{key("a"): "10"}, "website"), Matching: []string{"a"}, Applied: []string{"a"}}},
	}, {
		name: "init containers untouched: a conflict only in an init container is none",
		in: model.Admission{Presets: []*v1alpha1.PodPreset{conflicting}, Pod: func() *corev1.Pod {
			p := pod()
			p.Spec.InitContainers[0].Env = []corev1.EnvVar{own}
			return p
		}()},
		opts: model.Options{Variant: merge.Variant{InitContainersUntouched: true}},
		want: []model.Outcome{{Pod: func() *corev1.Pod {
			p := withEnv(pod(), []corev1.EnvVar{env("OWN", "preset")}, map[string]string{key("c"): "12"}, "website")
			p.Spec.InitContainers[0].Env = []corev1.EnvVar{own}
			return p
		}(), Matching: []string{"c"}, Applied: []string{"c"}}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := model.Admit(tt.in, tt.opts)
			opts := []cmp.Option{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(model.Outcome{}, "Conflicts")}
			if diff := cmp.Diff(tt.want, got, opts...); diff != "" {
				t.Errorf("Admit() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnvFromModes checks the ways of comparing envFrom entries on one
// pod: an entry identical to the pod's, and one that differs only in
// optional, which two presets inject.
func TestEnvFromModes(t *testing.T) {
	cm := func(optional bool) corev1.EnvFromSource {
		return corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}, Optional: &optional}}
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", EnvFrom: []corev1.EnvFromSource{cm(false)}}}}}
	presets := []*v1alpha1.PodPreset{
		preset("a", "1", v1alpha1.PodPresetSpec{EnvFrom: []corev1.EnvFromSource{cm(false)}}),
		preset("b", "2", v1alpha1.PodPresetSpec{EnvFrom: []corev1.EnvFromSource{cm(true)}}),
		preset("c", "3", v1alpha1.PodPresetSpec{EnvFrom: []corev1.EnvFromSource{cm(true)}}),
	}
	tests := []struct {
		name      string
		mode      merge.EnvFromMode
		envFrom   []corev1.EnvFromSource
		conflicts int
	}{
		{"compared: the identical skipped, the others conflicts", merge.EnvFromCompared, []corev1.EnvFromSource{cm(false)}, 2},
		{"de-duplicated: the identical skipped, the other appended once", merge.EnvFromDeduplicated, []corev1.EnvFromSource{cm(false), cm(true)}, 0},
		{"appended: all appended", merge.EnvFromAppended, []corev1.EnvFromSource{cm(false), cm(false), cm(true), cm(true)}, 0},
		{"appended unless submitted: the pod's own skipped, the presets' shared one twice", merge.EnvFromAppendedUnlessSubmitted, []corev1.EnvFromSource{cm(false), cm(true), cm(true)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := model.Admit(model.Admission{Presets: presets, Pod: p}, model.Options{Variant: merge.Variant{EnvFrom: tt.mode}})
			if len(got) != 1 {
				t.Fatalf("got %d outcomes, want 1", len(got))
			}
			if diff := cmp.Diff(tt.envFrom, got[0].Pod.Spec.Containers[0].EnvFrom); diff != "" {
				t.Errorf("envFrom mismatch (-want +got):\n%s", diff)
			}
			if len(got[0].Conflicts) != tt.conflicts {
				t.Errorf("got %d conflicts (%v), want %d", len(got[0].Conflicts), got[0].Conflicts, tt.conflicts)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
