// Package defaultstest holds a fixture for tests of the API server's
// defaults: a preset spec that needs every default package defaults knows.
package defaultstest

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// EveryDefault returns a preset spec (selector app=website) with at least
// one item for each default of package defaults, none of them set, plus an
// envFrom item and two volume mounts, which have no defaults. Each call
// returns new memory.
func EveryDefault() v1alpha1.PodPresetSpec {
	volume := func(name string, src corev1.VolumeSource) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: src}
	}
	downwardFile := func(path, fieldPath string) corev1.DownwardAPIVolumeFile {
		return corev1.DownwardAPIVolumeFile{Path: path, FieldRef: &corev1.ObjectFieldSelector{FieldPath: fieldPath}}
	}
	return v1alpha1.PodPresetSpec{
		Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "website"}},
		Env: []corev1.EnvVar{
			{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			{Name: "F", ValueFrom: &corev1.EnvVarSource{FileKeyRef: &corev1.FileKeySelector{VolumeName: "v", Path: "p", Key: "k"}}},
		},
		EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
		Volumes: []corev1.Volume{
			{Name: "scratch"},
			volume("secret", corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "creds"}}),
			volume("config", corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}),
			volume("host", corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}),
			volume("downward", corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{downwardFile("labels", "metadata.labels")},
			}}),
			volume("projected", corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{downwardFile("ns", "metadata.namespace")}}},
			}}}),
			volume("iscsi", corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{TargetPortal: "10.0.0.1:3260", IQN: "iqn.2001-04.com.example:s"}}),
			volume("rbd", corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{CephMonitors: []string{"10.0.0.1:6789"}, RBDImage: "img"}}),
			volume("azure", corev1.VolumeSource{AzureDisk: &corev1.AzureDiskVolumeSource{DiskName: "d", DataDiskURI: "https://example/d.vhd"}}),
			volume("scaleio", corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{Gateway: "https://gw", System: "sys", SecretRef: &corev1.LocalObjectReference{Name: "s"}}}),
			volume("ephemeral", corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1500u")},
					},
				},
			}}}),
			volume("image", corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "quay.io/crio/artifact"}}),
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "secret", MountPath: "/secret"}, {Name: "scratch", MountPath: "/scratch"}},
	}
}
