package merge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/defaults/defaultstest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/conflict"
)

// quantityComparer lets cmp compare resource.Quantity (unexported fields) by value.
var quantityComparer = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func ptr[T any](v T) *T { return &v }

func fieldRefEnv(name, apiVersion, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: apiVersion, FieldPath: path},
	}}
}

func secretVolume(name, secret string, mode *int32) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret, DefaultMode: mode}}}
}

// everyDefaultPreset has at least one item for each default, none of them set.
func everyDefaultPreset() *v1alpha1.PodPreset {
	return newPreset("every-default", "5", defaultstest.EveryDefault())
}

// TestApplyComparesDefaultedItems covers R3.4 against a pod that the API
// server has defaulted: a preset item written like the pod's item, without
// the defaults, is identical to it.
func TestApplyComparesDefaultedItems(t *testing.T) {
	const mode0644, mode0400 = int32(0o644), int32(0o400)
	defaultedPreset := defaults.Preset(everyDefaultPreset())
	// websiteWith returns the defaulted pod holding the given items in container "website".
	websiteWith := func(env []corev1.EnvVar, volumes []corev1.Volume, mounts []corev1.VolumeMount, opts ...podOption) *corev1.Pod {
		base := []podOption{
			withVolumes(volumes...),
			withContainers(newContainer("website", withEnv(env...), withMounts(mounts...))),
		}
		// DeepCopy, so that no two fixtures share memory through defaultedPreset.
		return newPod(append(base, opts...)...).DeepCopy()
	}

	tests := []applyCase{
		{
			name: "secret volume without defaultMode equals the pod's defaulted one",
			pod:  websiteWith(nil, []corev1.Volume{secretVolume("s", "creds", ptr(mode0644))}, nil),
			presets: []*v1alpha1.PodPreset{newPreset("s", "1", v1alpha1.PodPresetSpec{
				Volumes: []corev1.Volume{secretVolume("s", "creds", nil)},
			})},
			want:        websiteWith(nil, []corev1.Volume{secretVolume("s", "creds", ptr(mode0644))}, nil, withAnnotations(AnnotationKey("s"), "1")),
			wantApplied: []string{"s"},
		},
		{
			name: "env fieldRef without apiVersion equals the pod's defaulted one",
			pod:  websiteWith([]corev1.EnvVar{fieldRefEnv("NODE", "v1", "spec.nodeName")}, nil, nil),
			presets: []*v1alpha1.PodPreset{newPreset("e", "1", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{fieldRefEnv("NODE", "", "spec.nodeName")},
			})},
			want:        websiteWith([]corev1.EnvVar{fieldRefEnv("NODE", "v1", "spec.nodeName")}, nil, nil, withAnnotations(AnnotationKey("e"), "1")),
			wantApplied: []string{"e"},
		},
		{
			name: "volume without a source equals the pod's emptyDir",
			pod:  websiteWith(nil, []corev1.Volume{emptyDir("scratch")}, nil),
			presets: []*v1alpha1.PodPreset{newPreset("v", "1", v1alpha1.PodPresetSpec{
				Volumes: []corev1.Volume{{Name: "scratch"}},
			})},
			want:        websiteWith(nil, []corev1.Volume{emptyDir("scratch")}, nil, withAnnotations(AnnotationKey("v"), "1")),
			wantApplied: []string{"v"},
		},
		{
			name: "every default: a pod already holding the defaulted items gets no duplicate and no conflict",
			pod:  websiteWith(defaultedPreset.Spec.Env, defaultedPreset.Spec.Volumes, defaultedPreset.Spec.VolumeMounts),
			presets: []*v1alpha1.PodPreset{
				everyDefaultPreset(),
			},
			want: websiteWith(defaultedPreset.Spec.Env, defaultedPreset.Spec.Volumes, defaultedPreset.Spec.VolumeMounts,
				withAnnotations(AnnotationKey("every-default"), "5"),
				func(p *corev1.Pod) {
					// envFrom has no defaults and was not in the pod: it is injected.
					p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{configMapEnv("", "cm")}
				},
			),
			wantApplied: []string{"every-default"},
		},
		{
			name: "injected items are the defaulted forms",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{
				everyDefaultPreset(),
			},
			want: websiteWith(defaultedPreset.Spec.Env, defaultedPreset.Spec.Volumes, defaultedPreset.Spec.VolumeMounts,
				withAnnotations(AnnotationKey("every-default"), "5"),
				func(p *corev1.Pod) { p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{configMapEnv("", "cm")} },
			),
			wantApplied: []string{"every-default"},
		},
		{
			name: "a preset written with the defaults and one written without them inject the item once",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{
				newPreset("a", "1", v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{secretVolume("s", "creds", ptr(mode0644))}}),
				newPreset("b", "2", v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{secretVolume("s", "creds", nil)}}),
			},
			want: websiteWith(nil, []corev1.Volume{secretVolume("s", "creds", ptr(mode0644))}, nil,
				withAnnotations(AnnotationKey("a"), "1", AnnotationKey("b"), "2")),
			wantApplied: []string{"a", "b"},
		},
		{
			name: "defaultMode 0400 in the pod against the default 0644 of the preset still conflicts",
			pod:  websiteWith(nil, []corev1.Volume{secretVolume("s", "creds", ptr(mode0400))}, nil),
			presets: []*v1alpha1.PodPreset{newPreset("s", "1", v1alpha1.PodPresetSpec{
				Volumes: []corev1.Volume{secretVolume("s", "creds", nil)},
			})},
			wantConflicts: []conflict.Item{{Preset: "s", Field: "volumes", Key: "s"}},
		},
		{
			name: "defaultMode 0400 in the preset against the pod's defaulted 0644 still conflicts",
			pod:  websiteWith(nil, []corev1.Volume{secretVolume("s", "creds", ptr(mode0644))}, nil),
			presets: []*v1alpha1.PodPreset{newPreset("s", "1", v1alpha1.PodPresetSpec{
				Volumes: []corev1.Volume{secretVolume("s", "creds", ptr(mode0400))},
			})},
			wantConflicts: []conflict.Item{{Preset: "s", Field: "volumes", Key: "s"}},
		},
		{
			name: "fieldRef apiVersion v2 in the preset against the pod's defaulted v1 still conflicts",
			pod:  websiteWith([]corev1.EnvVar{fieldRefEnv("NODE", "v1", "spec.nodeName")}, nil, nil),
			presets: []*v1alpha1.PodPreset{newPreset("e", "1", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{fieldRefEnv("NODE", "v2", "spec.nodeName")},
			})},
			wantConflicts: []conflict.Item{{Preset: "e", Container: "website", Field: "env", Key: "NODE"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, quantityComparer) })
	}
}

// TestApplyReinvocation: the webhook is invoked again on the pod it mutated
// (reinvocationPolicy: IfNeeded) after the API server stored the defaulted
// items; nothing changes and nothing conflicts.
func TestApplyReinvocation(t *testing.T) {
	pod := newPod(withInitContainers(newContainer("init")), withContainers(newContainer("website")))
	presets := []*v1alpha1.PodPreset{everyDefaultPreset()}

	once := Apply(pod, presets)
	if len(once.Conflicts) > 0 {
		t.Fatalf("first Apply() conflicts: %v", once.Conflicts)
	}
	twice := Apply(once.Pod, presets)
	if len(twice.Conflicts) > 0 {
		t.Fatalf("second Apply() conflicts: %v", twice.Conflicts)
	}
	if diff := cmp.Diff(once.Pod, twice.Pod, quantityComparer); diff != "" {
		t.Errorf("second Apply() changed the pod (-once +twice):\n%s", diff)
	}
	if diff := cmp.Diff(once.Applied, twice.Applied); diff != "" {
		t.Errorf("second Apply() applied other presets (-once +twice):\n%s", diff)
	}
}

func TestApplyDoesNotDefaultThePodsOwnItems(t *testing.T) {
	// The pod is the API server's business: Apply leaves its items as they
	// are, even when they lack defaults, and only injects defaulted items.
	pod := newPod(
		withVolumes(secretVolume("own", "own", nil)),
		withContainers(newContainer("website", withEnv(fieldRefEnv("OWN", "", "spec.nodeName")))),
	)
	got := Apply(pod, []*v1alpha1.PodPreset{newPreset("p", "1", v1alpha1.PodPresetSpec{
		Volumes: []corev1.Volume{secretVolume("new", "new", nil)},
	})})
	want := newPod(
		withAnnotations(AnnotationKey("p"), "1"),
		withVolumes(secretVolume("own", "own", nil), secretVolume("new", "new", ptr(int32(0o644)))),
		withContainers(newContainer("website", withEnv(fieldRefEnv("OWN", "", "spec.nodeName")))),
	)
	if diff := cmp.Diff(want, got.Pod); diff != "" {
		t.Errorf("Apply() mismatch (-want +got):\n%s", diff)
	}
}
