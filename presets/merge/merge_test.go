package merge

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/conflict"
)

func TestAnnotationKey(t *testing.T) {
	if got, want := AnnotationKey("allow-database"), "podpreset.admission.kubernetes.io/podpreset-allow-database"; got != want {
		t.Errorf("AnnotationKey() = %q, want %q", got, want)
	}
	if got, want := ExcludeAnnotation, "podpreset.admission.kubernetes.io/exclude"; got != want {
		t.Errorf("ExcludeAnnotation = %q, want %q", got, want)
	}
}

// applyCase is a case of Apply: a pod, presets and the expected result.
type applyCase struct {
	name    string
	pod     *corev1.Pod
	presets []*v1alpha1.PodPreset
	// want is the expected pod; nil means "exactly the pod as submitted".
	want          *corev1.Pod
	wantApplied   []string
	wantConflicts []conflict.Item
}

// check runs Apply on the case, reports any difference from what the case
// expects, and returns the result. A conflict's items (Injected, Existing)
// are TestConflictItems' to check.
func (tc applyCase) check(t *testing.T, opts ...cmp.Option) Result {
	t.Helper()
	want := Result{Pod: tc.want, Applied: tc.wantApplied, Conflicts: tc.wantConflicts}
	if want.Pod == nil {
		want.Pod = tc.pod.DeepCopy()
	}
	got := Apply(tc.pod, tc.presets)
	opts = append(opts, cmpopts.IgnoreFields(conflict.Item{}, "Injected", "Existing"))
	if diff := cmp.Diff(want, got, opts...); diff != "" {
		t.Errorf("Apply() mismatch (-want +got):\n%s", diff)
	}
	return got
}

func TestApply(t *testing.T) {
	tests := []applyCase{
		{
			name: "no presets leaves the pod unchanged",
			pod:  newPod(withContainers(newContainer("website"))),
		},
		{
			name:    "nil presets are ignored",
			pod:     newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{nil},
		},
		{
			name: "env is added to every container and init container",
			pod: newPod(
				withInitContainers(newContainer("init")),
				withContainers(newContainer("website"), newContainer("sidecar", withEnv(env("A", "a")))),
			),
			presets: []*v1alpha1.PodPreset{newPreset("db", "7", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("DB_PORT", "6379")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("db"), "7"),
				withInitContainers(newContainer("init", withEnv(env("DB_PORT", "6379")))),
				withContainers(
					newContainer("website", withEnv(env("DB_PORT", "6379"))),
					newContainer("sidecar", withEnv(env("A", "a"), env("DB_PORT", "6379"))),
				),
			),
			wantApplied: []string{"db"},
		},
		{
			name: "env with valueFrom is added",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{newPreset("db", "7", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("db"), "7"),
				// Injected in its defaulted form (see Defaulted).
				withContainers(newContainer("website", withEnv(corev1.EnvVar{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}}}))),
			),
			wantApplied: []string{"db"},
		},
		{
			name: "envFrom with configMapRef, secretRef and prefix is added",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{newPreset("db", "7", v1alpha1.PodPresetSpec{
				EnvFrom: []corev1.EnvFromSource{configMapEnv("", "etcd-env-config"), configMapEnv("DB_", "etcd-env-config"), secretEnv("", "db-creds")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("db"), "7"),
				withContainers(newContainer("website", withEnvFrom(configMapEnv("", "etcd-env-config"), configMapEnv("DB_", "etcd-env-config"), secretEnv("", "db-creds")))),
			),
			wantApplied: []string{"db"},
		},
		{
			name: "volumes are added to the pod and volumeMounts to every container",
			pod: newPod(
				withVolumes(emptyDir("data")),
				withInitContainers(newContainer("init")),
				withContainers(newContainer("website", withMounts(mount("data", "/data")))),
			),
			presets: []*v1alpha1.PodPreset{newPreset("cache", "3", v1alpha1.PodPresetSpec{
				Volumes:      []corev1.Volume{emptyDir("cache-volume")},
				VolumeMounts: []corev1.VolumeMount{mount("cache-volume", "/cache")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("cache"), "3"),
				withVolumes(emptyDir("data"), emptyDir("cache-volume")),
				withInitContainers(newContainer("init", withMounts(mount("cache-volume", "/cache")))),
				withContainers(newContainer("website", withMounts(mount("data", "/data"), mount("cache-volume", "/cache")))),
			),
			wantApplied: []string{"cache"},
		},
		{
			name: "ephemeral containers are not touched",
			pod: newPod(
				withContainers(newContainer("website")),
				withEphemeralContainers(newContainer("debugger")),
			),
			presets: []*v1alpha1.PodPreset{newPreset("all", "1", v1alpha1.PodPresetSpec{
				Env:          []corev1.EnvVar{env("A", "a")},
				EnvFrom:      []corev1.EnvFromSource{configMapEnv("", "cm")},
				Volumes:      []corev1.Volume{emptyDir("v")},
				VolumeMounts: []corev1.VolumeMount{mount("v", "/v")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("all"), "1"),
				withVolumes(emptyDir("v")),
				withContainers(newContainer("website", withEnv(env("A", "a")), withEnvFrom(configMapEnv("", "cm")), withMounts(mount("v", "/v")))),
				withEphemeralContainers(newContainer("debugger")),
			),
			wantApplied: []string{"all"},
		},
		{
			name: "lists that receive nothing stay nil",
			pod: newPod(
				withInitContainers(newContainer("init")),
				withContainers(newContainer("website")),
			),
			presets: []*v1alpha1.PodPreset{newPreset("vol", "1", v1alpha1.PodPresetSpec{
				Volumes: []corev1.Volume{emptyDir("v")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("vol"), "1"),
				withVolumes(emptyDir("v")),
				withInitContainers(newContainer("init")),
				withContainers(newContainer("website")),
			),
			wantApplied: []string{"vol"},
		},
		{
			name: "pod volumes stay nil when only env is injected",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{newPreset("env", "1", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("A", "a")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("env"), "1"),
				withContainers(newContainer("website", withEnv(env("A", "a")))),
			),
			wantApplied: []string{"env"},
		},
		{
			name: "existing items first, then presets in the given order, each preset's items in their order",
			pod: newPod(
				withVolumes(emptyDir("own")),
				withContainers(newContainer("website",
					withEnv(env("OWN", "1")),
					withEnvFrom(configMapEnv("", "own")),
					withMounts(mount("own", "/own")),
				)),
			),
			// Deliberately not sorted by name: Apply keeps the order it is given.
			presets: []*v1alpha1.PodPreset{
				newPreset("b", "2", v1alpha1.PodPresetSpec{
					Env:          []corev1.EnvVar{env("B2", "x"), env("B1", "x")},
					EnvFrom:      []corev1.EnvFromSource{secretEnv("", "b2"), configMapEnv("", "b1")},
					Volumes:      []corev1.Volume{emptyDir("b2"), emptyDir("b1")},
					VolumeMounts: []corev1.VolumeMount{mount("b2", "/b2"), mount("b1", "/b1")},
				}),
				newPreset("a", "1", v1alpha1.PodPresetSpec{
					Env:          []corev1.EnvVar{env("A2", "x"), env("A1", "x")},
					EnvFrom:      []corev1.EnvFromSource{configMapEnv("", "a2"), configMapEnv("", "a1")},
					Volumes:      []corev1.Volume{emptyDir("a2"), emptyDir("a1")},
					VolumeMounts: []corev1.VolumeMount{mount("a2", "/a2"), mount("a1", "/a1")},
				}),
			},
			want: newPod(
				withAnnotations(AnnotationKey("b"), "2", AnnotationKey("a"), "1"),
				withVolumes(emptyDir("own"), emptyDir("b2"), emptyDir("b1"), emptyDir("a2"), emptyDir("a1")),
				withContainers(newContainer("website",
					withEnv(env("OWN", "1"), env("B2", "x"), env("B1", "x"), env("A2", "x"), env("A1", "x")),
					withEnvFrom(configMapEnv("", "own"), secretEnv("", "b2"), configMapEnv("", "b1"), configMapEnv("", "a2"), configMapEnv("", "a1")),
					withMounts(mount("own", "/own"), mount("b2", "/b2"), mount("b1", "/b1"), mount("a2", "/a2"), mount("a1", "/a1")),
				)),
			),
			wantApplied: []string{"b", "a"},
		},
		{
			name: "items identical to the pod's are skipped silently",
			pod: newPod(
				withVolumes(emptyDir("cache-volume")),
				withContainers(newContainer("website",
					withEnv(env("DB_PORT", "6379")),
					withEnvFrom(configMapEnv("DB_", "etcd-env-config")),
					withMounts(mount("cache-volume", "/cache")),
				)),
			),
			presets: []*v1alpha1.PodPreset{newPreset("db", "7", v1alpha1.PodPresetSpec{
				Env:          []corev1.EnvVar{env("DB_PORT", "6379"), env("NEW", "n")},
				EnvFrom:      []corev1.EnvFromSource{configMapEnv("DB_", "etcd-env-config")},
				Volumes:      []corev1.Volume{emptyDir("cache-volume")},
				VolumeMounts: []corev1.VolumeMount{mount("cache-volume", "/cache")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("db"), "7"),
				withVolumes(emptyDir("cache-volume")),
				withContainers(newContainer("website",
					withEnv(env("DB_PORT", "6379"), env("NEW", "n")),
					withEnvFrom(configMapEnv("DB_", "etcd-env-config")),
					withMounts(mount("cache-volume", "/cache")),
				)),
			),
			wantApplied: []string{"db"},
		},
		{
			name: "items identical across presets are injected once",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{
				newPreset("a", "1", v1alpha1.PodPresetSpec{
					Env:          []corev1.EnvVar{env("SHARED", "s")},
					Volumes:      []corev1.Volume{emptyDir("v")},
					VolumeMounts: []corev1.VolumeMount{mount("v", "/v")},
				}),
				newPreset("b", "2", v1alpha1.PodPresetSpec{
					Env:          []corev1.EnvVar{env("SHARED", "s"), env("B", "b")},
					Volumes:      []corev1.Volume{emptyDir("v")},
					VolumeMounts: []corev1.VolumeMount{mount("v", "/v")},
				}),
			},
			want: newPod(
				withAnnotations(AnnotationKey("a"), "1", AnnotationKey("b"), "2"),
				withVolumes(emptyDir("v")),
				withContainers(newContainer("website", withEnv(env("SHARED", "s"), env("B", "b")), withMounts(mount("v", "/v")))),
			),
			wantApplied: []string{"a", "b"},
		},
		{
			name: "env names are case-sensitive",
			pod:  newPod(withContainers(newContainer("website", withEnv(env("db_port", "1"))))),
			presets: []*v1alpha1.PodPreset{newPreset("db", "7", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("DB_PORT", "2")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("db"), "7"),
				withContainers(newContainer("website", withEnv(env("db_port", "1"), env("DB_PORT", "2")))),
			),
			wantApplied: []string{"db"},
		},
		{
			name: "envFrom entries differing only in prefix or source kind do not conflict",
			pod:  newPod(withContainers(newContainer("website", withEnvFrom(configMapEnv("", "cfg"))))),
			presets: []*v1alpha1.PodPreset{newPreset("db", "7", v1alpha1.PodPresetSpec{
				EnvFrom: []corev1.EnvFromSource{configMapEnv("DB_", "cfg"), secretEnv("", "cfg")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("db"), "7"),
				withContainers(newContainer("website", withEnvFrom(configMapEnv("", "cfg"), configMapEnv("DB_", "cfg"), secretEnv("", "cfg")))),
			),
			wantApplied: []string{"db"},
		},
		{
			name: "one preset mounting the same volume twice conflicts on the name key",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{newPreset("twice", "1", v1alpha1.PodPresetSpec{
				Volumes: []corev1.Volume{emptyDir("v")},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "v", MountPath: "/a", SubPath: "a"},
					{Name: "v", MountPath: "/b", SubPath: "b"},
				},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "twice", Container: "website", Field: "volumeMounts", Key: "name v"},
			},
		},
		{
			name: "env conflict with the pod",
			pod:  newPod(withContainers(newContainer("website", withEnv(env("DB_PORT", "5432"))))),
			presets: []*v1alpha1.PodPreset{newPreset("allow-database", "7", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("DB_PORT", "6379")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "allow-database", Container: "website", Field: "env", Key: "DB_PORT"},
			},
		},
		{
			name: "envFrom conflict with the pod (configMapRef)",
			pod:  newPod(withContainers(newContainer("website", withEnvFrom(configMapEnv("", "etcd-env-config"))))),
			presets: []*v1alpha1.PodPreset{newPreset("db", "7", v1alpha1.PodPresetSpec{
				EnvFrom: []corev1.EnvFromSource{func() corev1.EnvFromSource {
					e := configMapEnv("", "etcd-env-config")
					optional := true
					e.ConfigMapRef.Optional = &optional
					return e
				}()},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "db", Container: "website", Field: "envFrom", Key: "configMapRef etcd-env-config"},
			},
		},
		{
			name: "envFrom conflict with the pod (prefix and secretRef)",
			pod: newPod(withContainers(newContainer("website", withEnvFrom(func() corev1.EnvFromSource {
				e := secretEnv("DB_", "db-creds")
				optional := false
				e.SecretRef.Optional = &optional
				return e
			}())))),
			presets: []*v1alpha1.PodPreset{newPreset("db", "7", v1alpha1.PodPresetSpec{
				EnvFrom: []corev1.EnvFromSource{secretEnv("DB_", "db-creds")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "db", Container: "website", Field: "envFrom", Key: "prefix DB_ secretRef db-creds"},
			},
		},
		{
			name: "volume conflict with the pod",
			pod:  newPod(withVolumes(configMapVolume("cache-volume", "cfg")), withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{newPreset("cache", "3", v1alpha1.PodPresetSpec{
				Volumes: []corev1.Volume{emptyDir("cache-volume")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "cache", Field: "volumes", Key: "cache-volume"},
			},
		},
		{
			name: "volumeMount conflict by name",
			pod:  newPod(withContainers(newContainer("website", withMounts(mount("cache-volume", "/var/cache"))))),
			presets: []*v1alpha1.PodPreset{newPreset("cache", "3", v1alpha1.PodPresetSpec{
				VolumeMounts: []corev1.VolumeMount{mount("cache-volume", "/cache")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "cache", Container: "website", Field: "volumeMounts", Key: "name cache-volume"},
			},
		},
		{
			name: "volumeMount conflict by mountPath",
			pod:  newPod(withContainers(newContainer("website", withMounts(mount("own", "/cache"))))),
			presets: []*v1alpha1.PodPreset{newPreset("cache", "3", v1alpha1.PodPresetSpec{
				VolumeMounts: []corev1.VolumeMount{mount("cache-volume", "/cache")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "cache", Container: "website", Field: "volumeMounts", Key: "mountPath /cache"},
			},
		},
		{
			name: "volumeMount conflict by name and by mountPath is reported twice",
			pod: newPod(withContainers(newContainer("website", withMounts(corev1.VolumeMount{
				Name: "cache-volume", MountPath: "/cache", ReadOnly: true,
			})))),
			presets: []*v1alpha1.PodPreset{newPreset("cache", "3", v1alpha1.PodPresetSpec{
				VolumeMounts: []corev1.VolumeMount{mount("cache-volume", "/cache")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "cache", Container: "website", Field: "volumeMounts", Key: "name cache-volume"},
				{Preset: "cache", Container: "website", Field: "volumeMounts", Key: "mountPath /cache"},
			},
		},
		{
			name: "conflicts in init containers are reported with the container name",
			pod: newPod(
				withInitContainers(newContainer("init", withEnv(env("A", "init")))),
				withContainers(newContainer("website")),
			),
			presets: []*v1alpha1.PodPreset{newPreset("p", "1", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("A", "preset")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "p", Container: "init", Field: "env", Key: "A"},
			},
		},
		{
			name: "conflict between two presets blames the later one and applies neither",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{
				newPreset("a", "1", v1alpha1.PodPresetSpec{
					Env:     []corev1.EnvVar{env("DB_PORT", "5432")},
					Volumes: []corev1.Volume{emptyDir("cache-volume")},
				}),
				newPreset("b", "2", v1alpha1.PodPresetSpec{
					Env:     []corev1.EnvVar{env("DB_PORT", "6379")},
					Volumes: []corev1.Volume{configMapVolume("cache-volume", "cfg")},
				}),
			},
			wantConflicts: []conflict.Item{
				{Preset: "b", Field: "volumes", Key: "cache-volume"},
				{Preset: "b", Container: "website", Field: "env", Key: "DB_PORT"},
			},
		},
		{
			name: "conflict between two envFrom of two presets",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{
				newPreset("a", "1", v1alpha1.PodPresetSpec{EnvFrom: []corev1.EnvFromSource{configMapEnv("DB_", "etcd-env-config")}}),
				newPreset("b", "2", v1alpha1.PodPresetSpec{EnvFrom: []corev1.EnvFromSource{func() corev1.EnvFromSource {
					e := configMapEnv("DB_", "etcd-env-config")
					optional := true
					e.ConfigMapRef.Optional = &optional
					return e
				}()}}),
			},
			wantConflicts: []conflict.Item{
				{Preset: "b", Container: "website", Field: "envFrom", Key: "prefix DB_ configMapRef etcd-env-config"},
			},
		},
		{
			name: "conflict with an earlier item of the same preset",
			pod:  newPod(withContainers(newContainer("website"))),
			presets: []*v1alpha1.PodPreset{newPreset("self", "1", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("A", "1"), env("A", "2")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "self", Container: "website", Field: "env", Key: "A"},
			},
		},
		{
			name: "a conflict blocks every preset, even a clean one, and leaves the pod as submitted",
			pod: newPod(
				withAnnotations("team", "web"),
				withVolumes(emptyDir("data")),
				withContainers(newContainer("website", withEnv(env("DB_PORT", "5432")), withMounts(mount("data", "/data")))),
			),
			presets: []*v1alpha1.PodPreset{
				newPreset("allow-database", "7", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("DB_PORT", "6379")}}),
				newPreset("clean", "8", v1alpha1.PodPresetSpec{
					Env:          []corev1.EnvVar{env("CLEAN", "yes")},
					Volumes:      []corev1.Volume{emptyDir("clean")},
					VolumeMounts: []corev1.VolumeMount{mount("clean", "/clean")},
				}),
			},
			wantConflicts: []conflict.Item{
				{Preset: "allow-database", Container: "website", Field: "env", Key: "DB_PORT"},
			},
		},
		{
			name: "every conflict of every preset is reported, ordered by preset then pod then container",
			pod: newPod(
				withVolumes(emptyDir("v")),
				withInitContainers(newContainer("init", withEnv(env("X", "init")))),
				withContainers(newContainer("website", withEnv(env("X", "main")), withMounts(mount("m", "/m")))),
			),
			presets: []*v1alpha1.PodPreset{
				newPreset("first", "1", v1alpha1.PodPresetSpec{
					Env:          []corev1.EnvVar{env("X", "first")},
					Volumes:      []corev1.Volume{configMapVolume("v", "cfg")},
					VolumeMounts: []corev1.VolumeMount{mount("other", "/m")},
				}),
				newPreset("clean", "2", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("CLEAN", "1")}}),
				newPreset("second", "3", v1alpha1.PodPresetSpec{
					Env: []corev1.EnvVar{env("CLEAN", "2")},
				}),
			},
			wantConflicts: []conflict.Item{
				{Preset: "first", Field: "volumes", Key: "v"},
				{Preset: "first", Container: "init", Field: "env", Key: "X"},
				{Preset: "first", Container: "website", Field: "env", Key: "X"},
				{Preset: "first", Container: "website", Field: "volumeMounts", Key: "mountPath /m"},
				{Preset: "second", Container: "init", Field: "env", Key: "CLEAN"},
				{Preset: "second", Container: "website", Field: "env", Key: "CLEAN"},
			},
		},
		{
			name: "identical conflicts are reported once, one per container",
			pod: newPod(withContainers(
				newContainer("a", withEnv(env("X", "pod"))),
				newContainer("b", withEnv(env("X", "pod"))),
			)),
			presets: []*v1alpha1.PodPreset{newPreset("p", "1", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("X", "1"), env("X", "2")},
			})},
			wantConflicts: []conflict.Item{
				{Preset: "p", Container: "a", Field: "env", Key: "X"},
				{Preset: "p", Container: "b", Field: "env", Key: "X"},
			},
		},
		{
			name: "annotations: existing ones are kept and the resourceVersion is the value",
			pod: newPod(
				withAnnotations("team", "web", AnnotationKey("db"), "old"),
				withContainers(newContainer("website")),
			),
			presets: []*v1alpha1.PodPreset{newPreset("db", "12345", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("A", "a")},
			})},
			want: newPod(
				withAnnotations("team", "web", AnnotationKey("db"), "12345"),
				withContainers(newContainer("website", withEnv(env("A", "a")))),
			),
			wantApplied: []string{"db"},
		},
		{
			name: "annotation is added even when the preset contributes nothing new",
			pod:  newPod(withContainers(newContainer("website", withEnv(env("A", "a"))))),
			presets: []*v1alpha1.PodPreset{newPreset("noop", "9", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("A", "a")},
			})},
			want: newPod(
				withAnnotations(AnnotationKey("noop"), "9"),
				withContainers(newContainer("website", withEnv(env("A", "a")))),
			),
			wantApplied: []string{"noop"},
		},
		{
			name: "annotation is added for a pod without containers",
			pod:  newPod(),
			presets: []*v1alpha1.PodPreset{newPreset("env-only", "4", v1alpha1.PodPresetSpec{
				Env: []corev1.EnvVar{env("A", "a")},
			})},
			want:        newPod(withAnnotations(AnnotationKey("env-only"), "4")),
			wantApplied: []string{"env-only"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.check(t); got.Pod == tc.pod {
				t.Errorf("Apply() returned the input pod, want a copy")
			}
		})
	}
}

func TestApplyNilPod(t *testing.T) {
	got := Apply(nil, []*v1alpha1.PodPreset{newPreset("a", "1", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("A", "a")}})})
	if diff := cmp.Diff(Result{}, got); diff != "" {
		t.Errorf("Apply(nil) mismatch (-want +got):\n%s", diff)
	}
}

func TestApplyIsIdempotent(t *testing.T) {
	optional := true
	tests := []struct {
		name    string
		pod     *corev1.Pod
		presets []*v1alpha1.PodPreset
	}{
		{
			name: "every kind of item, init containers and existing items",
			pod: newPod(
				withAnnotations("team", "web"),
				withVolumes(emptyDir("own")),
				withInitContainers(newContainer("init")),
				withContainers(
					newContainer("website", withEnv(env("OWN", "1")), withMounts(mount("own", "/own"))),
					newContainer("sidecar"),
				),
				withEphemeralContainers(newContainer("debugger")),
			),
			presets: []*v1alpha1.PodPreset{
				newPreset("a", "1", v1alpha1.PodPresetSpec{
					Env:          []corev1.EnvVar{env("A", "a"), {Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
					EnvFrom:      []corev1.EnvFromSource{configMapEnv("A_", "a"), {SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Optional: &optional}}},
					Volumes:      []corev1.Volume{emptyDir("a"), configMapVolume("cfg", "a")},
					VolumeMounts: []corev1.VolumeMount{mount("a", "/a"), {Name: "cfg", MountPath: "/cfg", ReadOnly: true}},
				}),
				newPreset("b", "2", v1alpha1.PodPresetSpec{
					Env:          []corev1.EnvVar{env("A", "a"), env("B", "b")},
					VolumeMounts: []corev1.VolumeMount{mount("a", "/a")},
				}),
			},
		},
		{
			name:    "nothing to inject",
			pod:     newPod(withContainers(newContainer("website", withEnv(env("A", "a"))))),
			presets: []*v1alpha1.PodPreset{newPreset("noop", "1", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("A", "a")}})},
		},
		{
			name:    "no presets",
			pod:     newPod(withContainers(newContainer("website"))),
			presets: nil,
		},
		{
			name: "conflicting presets",
			pod:  newPod(withContainers(newContainer("website", withEnv(env("A", "pod"))))),
			presets: []*v1alpha1.PodPreset{
				newPreset("a", "1", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("A", "preset")}}),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			once := Apply(tc.pod, tc.presets)
			twice := Apply(once.Pod, tc.presets)
			if diff := cmp.Diff(once.Pod, twice.Pod); diff != "" {
				t.Errorf("second Apply() changed the pod (-once +twice):\n%s", diff)
			}
			if diff := cmp.Diff(once.Applied, twice.Applied); diff != "" {
				t.Errorf("second Apply() applied other presets (-once +twice):\n%s", diff)
			}
		})
	}
}

func TestApplyDoesNotMutateInputs(t *testing.T) {
	tests := []struct {
		name    string
		pod     *corev1.Pod
		presets []*v1alpha1.PodPreset
	}{
		{
			name: "applied",
			pod: newPod(
				withVolumes(emptyDir("own")),
				withInitContainers(newContainer("init")),
				withContainers(newContainer("website", withEnv(env("OWN", "1")))),
			),
			presets: []*v1alpha1.PodPreset{newPreset("a", "1", v1alpha1.PodPresetSpec{
				Env:          []corev1.EnvVar{env("A", "a")},
				EnvFrom:      []corev1.EnvFromSource{configMapEnv("", "cfg")},
				Volumes:      []corev1.Volume{configMapVolume("cfg", "cfg")},
				VolumeMounts: []corev1.VolumeMount{mount("cfg", "/cfg")},
			})},
		},
		{
			name: "conflict",
			pod:  newPod(withContainers(newContainer("website", withEnv(env("A", "pod"))))),
			presets: []*v1alpha1.PodPreset{
				newPreset("clean", "1", v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{emptyDir("v")}}),
				newPreset("a", "2", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("A", "preset")}}),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			podBefore := tc.pod.DeepCopy()
			var presetsBefore []*v1alpha1.PodPreset
			for _, p := range tc.presets {
				presetsBefore = append(presetsBefore, p.DeepCopy())
			}

			got := Apply(tc.pod, tc.presets)

			if diff := cmp.Diff(podBefore, tc.pod); diff != "" {
				t.Errorf("Apply() mutated the pod (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(presetsBefore, tc.presets); diff != "" {
				t.Errorf("Apply() mutated the presets (-before +after):\n%s", diff)
			}

			// The result must share nothing with the inputs: scribbling over
			// every part of it must leave the inputs as they were.
			got.Pod.Annotations = map[string]string{"x": "y"}
			got.Pod.Labels["x"] = "y"
			for i := range got.Pod.Spec.Volumes {
				got.Pod.Spec.Volumes[i].Name = "scribbled"
				if cm := got.Pod.Spec.Volumes[i].ConfigMap; cm != nil {
					cm.Name = "scribbled"
				}
			}
			for _, cs := range [][]corev1.Container{got.Pod.Spec.InitContainers, got.Pod.Spec.Containers} {
				for i := range cs {
					for j := range cs[i].Env {
						cs[i].Env[j].Value = "scribbled"
					}
					for j := range cs[i].EnvFrom {
						cs[i].EnvFrom[j].ConfigMapRef.Name = "scribbled"
					}
					for j := range cs[i].VolumeMounts {
						cs[i].VolumeMounts[j].MountPath = "/scribbled"
					}
				}
			}
			if diff := cmp.Diff(podBefore, tc.pod); diff != "" {
				t.Errorf("the result pod shares memory with the input pod (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(presetsBefore, tc.presets); diff != "" {
				t.Errorf("the result pod shares memory with the presets (-before +after):\n%s", diff)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	labelled := newPreset("labelled", "1", v1alpha1.PodPresetSpec{Selector: matchLabels("app", "website")})
	other := newPreset("other", "1", v1alpha1.PodPresetSpec{Selector: matchLabels("app", "database")})
	all := newPreset("all", "1", v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{}})
	expressions := newPreset("expressions", "1", v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"website", "blog"}},
			{Key: "tier", Operator: metav1.LabelSelectorOpDoesNotExist},
		},
	}})
	notIn := newPreset("not-in", "1", v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"website"}},
		},
	}})
	invalid := newPreset("invalid", "1", v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: "Near", Values: []string{"website"}},
		},
	}})
	invalidToo := newPreset("invalid-too", "1", v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpExists, Values: []string{"website"}},
		},
	}})

	tests := []struct {
		name    string
		pod     *corev1.Pod
		presets []*v1alpha1.PodPreset
		want    []string
		// wantErr lists substrings the error must contain; nil means no error.
		wantErr []string
	}{
		{
			name:    "matchLabels matches",
			pod:     newPod(),
			presets: []*v1alpha1.PodPreset{labelled},
			want:    []string{"labelled"},
		},
		{
			name:    "matchLabels does not match",
			pod:     newPod(),
			presets: []*v1alpha1.PodPreset{other},
		},
		{
			name:    "empty selector matches a pod with labels",
			pod:     newPod(),
			presets: []*v1alpha1.PodPreset{all},
			want:    []string{"all"},
		},
		{
			name:    "empty selector matches a pod without labels",
			pod:     newPod(withLabels()),
			presets: []*v1alpha1.PodPreset{all, labelled},
			want:    []string{"all"},
		},
		{
			name:    "matchExpressions match",
			pod:     newPod(),
			presets: []*v1alpha1.PodPreset{expressions, notIn},
			want:    []string{"expressions"},
		},
		{
			name:    "matchExpressions do not match",
			pod:     newPod(withLabels("app", "website", "tier", "frontend")),
			presets: []*v1alpha1.PodPreset{expressions},
		},
		{
			name: "sorted by name in byte order",
			pod:  newPod(),
			presets: []*v1alpha1.PodPreset{
				newPreset("b", "1", v1alpha1.PodPresetSpec{}),
				newPreset("a-2", "1", v1alpha1.PodPresetSpec{}),
				newPreset("a", "1", v1alpha1.PodPresetSpec{}),
				newPreset("B", "1", v1alpha1.PodPresetSpec{}),
				newPreset("a-10", "1", v1alpha1.PodPresetSpec{}),
				newPreset("0", "1", v1alpha1.PodPresetSpec{}),
			},
			want: []string{"0", "B", "a", "a-10", "a-2", "b"},
		},
		{
			name:    "invalid selectors are reported and the others still returned",
			pod:     newPod(),
			presets: []*v1alpha1.PodPreset{labelled, invalid, other, invalidToo, all},
			want:    []string{"all", "labelled"},
			wantErr: []string{"default/invalid", "default/invalid-too"},
		},
		{
			name:    "nil presets are ignored",
			pod:     newPod(),
			presets: []*v1alpha1.PodPreset{nil, all},
			want:    []string{"all"},
		},
		{
			name: "no presets",
			pod:  newPod(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.presets)

			got, err := Select(tc.pod, tc.presets)

			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Errorf("Select() mismatch (-want +got):\n%s", diff)
			}
			switch {
			case tc.wantErr == nil && err != nil:
				t.Errorf("Select() error = %v, want none", err)
			case tc.wantErr != nil && err == nil:
				t.Errorf("Select() error = nil, want one mentioning %q", tc.wantErr)
			case err != nil:
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("Select() error = %q, want it to mention %q", err, s)
					}
				}
			}
			if diff := cmp.Diff(before, tc.presets); diff != "" {
				t.Errorf("Select() reordered its argument (-before +after):\n%s", diff)
			}
		})
	}
}

// TestConflictKeys checks that the keys Apply puts in conflicts render as documented.
func TestConflictKeys(t *testing.T) {
	pod := newPod(
		withVolumes(emptyDir("cache-volume")),
		withContainers(newContainer("website",
			withEnv(env("DB_PORT", "1")),
			withEnvFrom(configMapEnv("DB_", "etcd-env-config"), secretEnv("", "db-creds")),
			withMounts(mount("cache-volume", "/cache")),
		)),
	)
	optional := true
	cm := configMapEnv("DB_", "etcd-env-config")
	cm.ConfigMapRef.Optional = &optional
	secret := secretEnv("", "db-creds")
	secret.SecretRef.Optional = &optional
	presets := []*v1alpha1.PodPreset{newPreset("allow-database", "1", v1alpha1.PodPresetSpec{
		Env:          []corev1.EnvVar{env("DB_PORT", "2")},
		EnvFrom:      []corev1.EnvFromSource{cm, secret},
		Volumes:      []corev1.Volume{configMapVolume("cache-volume", "cfg")},
		VolumeMounts: []corev1.VolumeMount{{Name: "cache-volume", MountPath: "/cache", ReadOnly: true}},
	})}
	want := []string{
		"Conflict on pod preset allow-database: duplicate volume cache-volume; " +
			"duplicate env DB_PORT in container website; " +
			"duplicate envFrom prefix DB_ configMapRef etcd-env-config in container website; " +
			"duplicate envFrom secretRef db-creds in container website; " +
			"duplicate volumeMount name cache-volume in container website; " +
			"duplicate mountPath /cache in container website",
	}
	if diff := cmp.Diff(want, conflict.Messages(Apply(pod, presets).Conflicts)); diff != "" {
		t.Errorf("conflict.Messages(Apply().Conflicts) mismatch (-want +got):\n%s", diff)
	}
}

func TestMessages(t *testing.T) {
	tests := []struct {
		name      string
		conflicts []conflict.Item
		want      []string
	}{
		{
			name: "no conflicts",
		},
		{
			name: "one conflict",
			conflicts: []conflict.Item{
				{Preset: "allow-database", Container: "website", Field: "volumeMounts", Key: "mountPath /cache"},
			},
			want: []string{"Conflict on pod preset allow-database: duplicate mountPath /cache in container website"},
		},
		{
			name: "grouped by preset in order of first appearance",
			conflicts: []conflict.Item{
				{Preset: "z", Field: "volumes", Key: "v"},
				{Preset: "a", Container: "c", Field: "env", Key: "A"},
				{Preset: "z", Container: "c", Field: "env", Key: "Z"},
			},
			want: []string{
				"Conflict on pod preset z: duplicate volume v; duplicate env Z in container c",
				"Conflict on pod preset a: duplicate env A in container c",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, conflict.Messages(tc.conflicts)); diff != "" {
				t.Errorf("conflict.Messages() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConflictItems: a conflict carries both items, the preset's and the
// one already in the list, as compact JSON, so that an explanation can show
// them side by side; the first preset that meets an item keeps it.
func TestConflictItems(t *testing.T) {
	tests := []struct {
		name    string
		pod     *corev1.Pod
		presets []*v1alpha1.PodPreset
		want    []conflict.Item
	}{
		{
			name:    "env against the pod's",
			pod:     newPod(withContainers(newContainer("web", withEnv(env("DB", "pod"))))),
			presets: []*v1alpha1.PodPreset{newPreset("db", "1", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("DB", "preset")}})},
			want: []conflict.Item{{Preset: "db", Container: "web", Field: "env", Key: "DB",
				Injected: `{"name":"DB","value":"preset"}`, Existing: `{"name":"DB","value":"pod"}`}},
		},
		{
			name: "a volume against an earlier preset's",
			pod:  newPod(),
			presets: []*v1alpha1.PodPreset{
				newPreset("a", "1", v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{emptyDir("cache")}}),
				newPreset("b", "1", v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{configMapVolume("cache", "cm")}}),
			},
			want: []conflict.Item{{Preset: "b", Field: "volumes", Key: "cache",
				Injected: `{"name":"cache","configMap":{"name":"cm","defaultMode":420}}`, Existing: `{"name":"cache","emptyDir":{}}`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Apply(tt.pod, tt.presets)
			if diff := cmp.Diff(tt.want, got.Conflicts); diff != "" {
				t.Errorf("conflicts (-want +got):\n%s", diff)
			}
		})
	}
}
