package defaults

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	"presetsim.dev/presetsim/internal/defaults/defaultstest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// quantityComparer lets cmp compare resource.Quantity (unexported fields) by value.
var quantityComparer = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func ptr[T any](v T) *T { return &v }

// Digests of the right length and form, for image references.
var (
	sha256Hex = strings.Repeat("ab", 32)
	sha512Hex = strings.Repeat("cd", 64)
)

func fieldRefEnv(name, apiVersion, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{APIVersion: apiVersion, FieldPath: path},
	}}
}

func volume(name string, src corev1.VolumeSource) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: src}
}

func secretVolume(name, secret string, mode *int32) corev1.Volume {
	return volume(name, corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret, DefaultMode: mode}})
}

func downwardFile(path, apiVersion, fieldPath string) corev1.DownwardAPIVolumeFile {
	return corev1.DownwardAPIVolumeFile{Path: path, FieldRef: &corev1.ObjectFieldSelector{APIVersion: apiVersion, FieldPath: fieldPath}}
}

func TestPreset(t *testing.T) {
	const mode0644, mode0400 = int32(0o644), int32(0o400)
	fileKeyRef := func(optional *bool) corev1.EnvVar {
		return corev1.EnvVar{Name: "F", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{
			VolumeName: "v", Path: "p", Key: "k", Optional: optional,
		}}}
	}
	pvcTemplate := func(mode *corev1.PersistentVolumeMode, requests corev1.ResourceList, limits corev1.ResourceList) corev1.VolumeSource {
		return corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				VolumeMode:  mode,
				Resources:   corev1.VolumeResourceRequirements{Requests: requests, Limits: limits},
			},
		}}}
	}

	tests := []struct {
		name string
		in   v1alpha1.PodPresetSpec
		// want is the expected spec; nil means "in, unchanged".
		want *v1alpha1.PodPresetSpec
	}{
		{
			name: "empty spec",
		},
		{
			name: "selector and items without defaults are kept as they are",
			in: v1alpha1.PodPresetSpec{
				Selector: matchLabels("app", "website"),
				Env: []corev1.EnvVar{
					env("A", "a"),
					{Name: "S", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "k",
					}}},
					{Name: "C", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "c"}, Key: "k",
					}}},
					{Name: "R", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}},
				},
				EnvFrom:      []corev1.EnvFromSource{configMapEnv("", "cm"), secretEnv("P_", "s")},
				Volumes:      []corev1.Volume{emptyDir("e"), volume("pvc", corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}})},
				VolumeMounts: []corev1.VolumeMount{mount("e", "/e")},
			},
		},
		{
			name: "env fieldRef apiVersion defaults to v1",
			in:   v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{fieldRefEnv("NODE", "", "spec.nodeName")}},
			want: &v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{fieldRefEnv("NODE", "v1", "spec.nodeName")}},
		},
		{
			name: "env fieldRef apiVersion that is set is kept",
			in:   v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{fieldRefEnv("NODE", "v2", "spec.nodeName")}},
		},
		{
			name: "env fileKeyRef optional defaults to false",
			in:   v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{fileKeyRef(nil)}},
			want: &v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{fileKeyRef(ptr(false))}},
		},
		{
			name: "env fileKeyRef optional that is set is kept",
			in:   v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{fileKeyRef(ptr(true))}},
		},
		{
			name: "volume without a source becomes an emptyDir",
			in:   v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{{Name: "scratch"}}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{emptyDir("scratch")}},
		},
		{
			name: "secret defaultMode defaults to 0644",
			in:   v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{secretVolume("s", "creds", nil)}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{secretVolume("s", "creds", ptr(mode0644))}},
		},
		{
			name: "secret defaultMode that is set is kept",
			in:   v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{secretVolume("s", "creds", ptr(mode0400))}},
		},
		{
			name: "configMap defaultMode defaults to 0644",
			in:   v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{configMapVolume("c", "cfg")}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("c", corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, DefaultMode: ptr(int32(420)),
			}})}},
		},
		{
			name: "downwardAPI defaultMode and item fieldRef apiVersion",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("d", corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{
					downwardFile("labels", "", "metadata.labels"),
					downwardFile("name", "v2", "metadata.name"),
					{Path: "cpu", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "limits.cpu"}},
				},
			}})}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("d", corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				DefaultMode: ptr(mode0644),
				Items: []corev1.DownwardAPIVolumeFile{
					downwardFile("labels", "v1", "metadata.labels"),
					downwardFile("name", "v2", "metadata.name"),
					{Path: "cpu", ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: "c", Resource: "limits.cpu"}},
				},
			}})}},
		},
		{
			name: "projected defaultMode, downwardAPI fieldRef apiVersion and serviceAccountToken expirationSeconds",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("p", corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "vault", Path: "token"}},
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "short", ExpirationSeconds: ptr(int64(600))}},
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{downwardFile("ns", "", "metadata.namespace")}}},
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}},
				},
			}})}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("p", corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				DefaultMode: ptr(mode0644),
				Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "vault", Path: "token", ExpirationSeconds: ptr(int64(3600))}},
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "short", ExpirationSeconds: ptr(int64(600))}},
					{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{downwardFile("ns", "v1", "metadata.namespace")}}},
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}},
				},
			}})}},
		},
		{
			name: "projected defaultMode that is set is kept",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("p", corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				DefaultMode: ptr(mode0400),
			}})}},
		},
		{
			name: "hostPath type defaults to the empty HostPathType",
			in:   v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("h", corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}})}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("h", corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: "/var/log", Type: ptr(corev1.HostPathUnset),
			}})}},
		},
		{
			name: "hostPath type that is set is kept",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("h", corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: "/var/log", Type: ptr(corev1.HostPathDirectory),
			}})}},
		},
		{
			name: "iscsi iscsiInterface defaults to default",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("i", corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{
				TargetPortal: "10.0.0.1:3260", IQN: "iqn.2001-04.com.example:storage", Lun: 0,
			}})}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("i", corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{
				TargetPortal: "10.0.0.1:3260", IQN: "iqn.2001-04.com.example:storage", Lun: 0, ISCSIInterface: "default",
			}})}},
		},
		{
			name: "iscsi iscsiInterface that is set is kept",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("i", corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{
				TargetPortal: "10.0.0.1:3260", IQN: "iqn.2001-04.com.example:storage", ISCSIInterface: "tcp",
			}})}},
		},
		{
			name: "rbd pool, user and keyring",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("r", corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{
				CephMonitors: []string{"10.0.0.1:6789"}, RBDImage: "img",
			}})}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("r", corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{
				CephMonitors: []string{"10.0.0.1:6789"}, RBDImage: "img",
				RBDPool: "rbd", RadosUser: "admin", Keyring: "/etc/ceph/keyring",
			}})}},
		},
		{
			name: "rbd pool, user and keyring that are set are kept",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("r", corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{
				CephMonitors: []string{"10.0.0.1:6789"}, RBDImage: "img",
				RBDPool: "fast", RadosUser: "kube", Keyring: "/etc/kube/keyring",
			}})}},
		},
		{
			name: "azureDisk cachingMode, fsType, readOnly and kind",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("a", corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{
				DiskName: "d", DataDiskURI: "https://example/d.vhd",
			}})}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("a", corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{
				DiskName: "d", DataDiskURI: "https://example/d.vhd",
				CachingMode: ptr(corev1.AzureDataDiskCachingReadWrite),
				FSType:      ptr("ext4"),
				ReadOnly:    ptr(false),
				Kind:        ptr(corev1.AzureSharedBlobDisk),
			}})}},
		},
		{
			name: "azureDisk fields that are set are kept",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("a", corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{
				DiskName: "d", DataDiskURI: "https://example/d.vhd",
				CachingMode: ptr(corev1.AzureDataDiskCachingNone),
				FSType:      ptr("xfs"),
				ReadOnly:    ptr(true),
				Kind:        ptr(corev1.AzureManagedDisk),
			}})}},
		},
		{
			name: "scaleIO storageMode and fsType",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("s", corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{
				Gateway: "https://gw", System: "sys", SecretRef: &corev1.LocalObjectReference{Name: "s"},
			}})}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("s", corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{
				Gateway: "https://gw", System: "sys", SecretRef: &corev1.LocalObjectReference{Name: "s"},
				StorageMode: "ThinProvisioned", FSType: "xfs",
			}})}},
		},
		{
			name: "scaleIO storageMode and fsType that are set are kept",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("s", corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{
				Gateway: "https://gw", System: "sys", SecretRef: &corev1.LocalObjectReference{Name: "s"},
				StorageMode: "ThickProvisioned", FSType: "ext4",
			}})}},
		},
		{
			name: "ephemeral volumeClaimTemplate volumeMode defaults to Filesystem and quantities are rounded up to milli",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("eph", pvcTemplate(nil,
				corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1500u")},
			))}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("eph", pvcTemplate(ptr(corev1.PersistentVolumeFilesystem),
				corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2m")},
			))}},
		},
		{
			name: "ephemeral volumeClaimTemplate volumeMode that is set is kept",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("eph", pvcTemplate(ptr(corev1.PersistentVolumeBlock),
				corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}, nil,
			))}},
		},
		{
			name: "ephemeral volume without volumeClaimTemplate is kept",
			in:   v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{volume("eph", corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}})}},
		},
		{
			name: "image pullPolicy defaults to Always for the latest tag",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{
				volume("img", corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "quay.io/crio/artifact"}}),
			}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{
				volume("img", corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "quay.io/crio/artifact", PullPolicy: corev1.PullAlways}}),
			}},
		},
		{
			name: "image pullPolicy defaults to IfNotPresent for another tag",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{
				volume("img", corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "quay.io/crio/artifact:v2"}}),
			}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{
				volume("img", corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "quay.io/crio/artifact:v2", PullPolicy: corev1.PullIfNotPresent}}),
			}},
		},
		{
			name: "image pullPolicy that is set is kept",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{
				volume("img", corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "quay.io/crio/artifact", PullPolicy: corev1.PullNever}}),
			}},
		},
		{
			name: "every volume is defaulted, in order",
			in: v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{
				secretVolume("s1", "a", nil), {Name: "scratch"}, secretVolume("s2", "b", ptr(mode0400)), configMapVolume("c", "cfg"),
			}},
			want: &v1alpha1.PodPresetSpec{Volumes: []corev1.Volume{
				secretVolume("s1", "a", ptr(mode0644)), emptyDir("scratch"), secretVolume("s2", "b", ptr(mode0400)),
				volume("c", corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, DefaultMode: ptr(mode0644),
				}}),
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := newPreset("p", "7", tc.in)
			in.Labels = map[string]string{"team": "web"}
			want := in.DeepCopy()
			if tc.want != nil {
				want.Spec = *tc.want
			}
			got := Preset(in)
			if diff := cmp.Diff(want, got, quantityComparer); diff != "" {
				t.Errorf("Preset() mismatch (-want +got):\n%s", diff)
			}
			if got == in {
				t.Errorf("Preset() returned its input, want a copy")
			}
			// Defaulting is idempotent, as the API server's is.
			if diff := cmp.Diff(got, Preset(got), quantityComparer); diff != "" {
				t.Errorf("Preset() is not idempotent (-once +twice):\n%s", diff)
			}
		})
	}
}

func TestPresetNil(t *testing.T) {
	if got := Preset(nil); got != nil {
		t.Errorf("Preset(nil) = %v, want nil", got)
	}
}

func TestPresetDoesNotMutateItsInput(t *testing.T) {
	in := newPreset("every-default", "5", defaultstest.EveryDefault())
	before := in.DeepCopy()

	got := Preset(in)

	if diff := cmp.Diff(before, in, quantityComparer); diff != "" {
		t.Fatalf("Preset() mutated its input (-before +after):\n%s", diff)
	}
	if equality.Semantic.DeepEqual(got, in) {
		t.Fatalf("Preset() changed nothing; the fixture is meant to need every default")
	}

	// The result must share nothing with the input.
	got.Labels = map[string]string{"x": "y"}
	got.Spec.Selector.MatchLabels["app"] = "scribbled"
	for i := range got.Spec.Env {
		got.Spec.Env[i].Name = "scribbled"
		if vf := got.Spec.Env[i].ValueFrom; vf != nil {
			if vf.FieldRef != nil {
				vf.FieldRef.APIVersion = "scribbled"
			}
			if vf.FileKeyRef != nil {
				*vf.FileKeyRef.Optional = true
			}
		}
	}
	got.Spec.EnvFrom[0].ConfigMapRef.Name = "scribbled"
	for i := range got.Spec.Volumes {
		s := &got.Spec.Volumes[i].VolumeSource
		got.Spec.Volumes[i].Name = "scribbled"
		switch {
		case s.Secret != nil:
			*s.Secret.DefaultMode = 0
		case s.ConfigMap != nil:
			*s.ConfigMap.DefaultMode = 0
		case s.HostPath != nil:
			*s.HostPath.Type = "scribbled"
		case s.DownwardAPI != nil:
			s.DownwardAPI.Items[0].FieldRef.APIVersion = "scribbled"
		case s.Projected != nil:
			*s.Projected.Sources[0].ServiceAccountToken.ExpirationSeconds = 0
			s.Projected.Sources[1].DownwardAPI.Items[0].FieldRef.APIVersion = "scribbled"
		case s.ISCSI != nil:
			s.ISCSI.ISCSIInterface = "scribbled"
		case s.RBD != nil:
			s.RBD.Keyring = "scribbled"
		case s.AzureDisk != nil:
			*s.AzureDisk.FSType = "scribbled"
		case s.ScaleIO != nil:
			s.ScaleIO.FSType = "scribbled"
		case s.Ephemeral != nil:
			s.Ephemeral.VolumeClaimTemplate.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("9")
		case s.Image != nil:
			s.Image.PullPolicy = "scribbled"
		}
	}
	got.Spec.VolumeMounts[0].MountPath = "/scribbled"
	if diff := cmp.Diff(before, in, quantityComparer); diff != "" {
		t.Errorf("the result of Preset() shares memory with its input (-before +after):\n%s", diff)
	}
}

func TestImagePullPolicy(t *testing.T) {
	tests := []struct {
		reference string
		want      corev1.PullPolicy
	}{
		{"nginx", corev1.PullAlways},
		{"nginx:latest", corev1.PullAlways},
		{"library/nginx", corev1.PullAlways},
		{"docker.io/library/nginx", corev1.PullAlways},
		{"index.docker.io/nginx", corev1.PullAlways},
		{"registry.example.com:5000/team/tool", corev1.PullAlways},
		{"localhost/tool:latest", corev1.PullAlways},
		{"[::1]:5000/tool", corev1.PullAlways},
		{"nginx:1.27", corev1.PullIfNotPresent},
		{"nginx:Latest", corev1.PullIfNotPresent},
		{"registry.example.com:5000/team/tool:v1", corev1.PullIfNotPresent},
		{"nginx@sha256:" + sha256Hex, corev1.PullIfNotPresent},
		{"nginx:latest@sha256:" + sha256Hex, corev1.PullAlways},
		{"nginx:1.27@sha512:" + sha512Hex, corev1.PullIfNotPresent},
		// Invalid references: ParseImageName fails, so the tag is not "latest".
		{"", corev1.PullIfNotPresent},
		{"Nginx", corev1.PullIfNotPresent},
		{"team/Tool", corev1.PullIfNotPresent},
		{sha256Hex, corev1.PullIfNotPresent},
		{"nginx@sha256:abc", corev1.PullIfNotPresent},
		{"nginx@sha256:" + strings.ToUpper(sha256Hex), corev1.PullIfNotPresent},
		{"nginx@md5:" + sha256Hex, corev1.PullIfNotPresent},
		{"nginx:", corev1.PullIfNotPresent},
		{"nginx::latest", corev1.PullIfNotPresent},
		{"-nginx", corev1.PullIfNotPresent},
		// The repository path may have at most 255 characters.
		{"team/" + strings.Repeat("a", 250), corev1.PullAlways},
		{"team/" + strings.Repeat("a", 251), corev1.PullIfNotPresent},
		{strings.Repeat("a", 247), corev1.PullAlways},       // library/ + 247 = 255
		{strings.Repeat("a", 248), corev1.PullIfNotPresent}, // library/ + 248 = 256
	}
	for _, tc := range tests {
		t.Run(tc.reference, func(t *testing.T) {
			if got := imagePullPolicy(tc.reference); got != tc.want {
				t.Errorf("imagePullPolicy(%q) = %q, want %q", tc.reference, got, tc.want)
			}
		})
	}
}

func TestPod(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		Volumes:        []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "x"}}}},
		InitContainers: []corev1.Container{{Name: "i", Env: []corev1.EnvVar{{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}},
		Containers:     []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: "N", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}},
	}}
	before := pod.DeepCopy()
	got := Pod(pod)
	if m := got.Spec.Volumes[0].Secret.DefaultMode; m == nil || *m != 0o644 {
		t.Errorf("secret defaultMode = %v, want 0644", m)
	}
	for _, c := range append(got.Spec.InitContainers, got.Spec.Containers...) {
		if v := c.Env[0].ValueFrom.FieldRef.APIVersion; v != "v1" {
			t.Errorf("container %s: fieldRef apiVersion %q, want v1", c.Name, v)
		}
	}
	if !equality.Semantic.DeepEqual(before, pod) {
		t.Errorf("Pod() mutated its input")
	}
	if Pod(nil) != nil {
		t.Errorf("Pod(nil) != nil")
	}
}
