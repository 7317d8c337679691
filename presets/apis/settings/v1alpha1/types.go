package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxNameLength is the longest allowed PodPreset name (R1.6): the pod annotation
// "podpreset-<name>" must fit the 63-character name part of a qualified name.
//
// Validation that sits on fields of the core/v1 types (volume and env var
// names, one envFrom source, the name length) is added to the generated CRD by
// hack/crdpatch, since markers cannot reach into those types.
const MaxNameLength = 53

// PodPreset is a policy resource that injects environment variables, envFrom
// sources, volumes and volume mounts into pods matching its selector when they
// are created.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=podpresets,scope=Namespaced
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved, PodPreset was removed from Kubernetes in 1.20; this CRD re-creates it for testing"
type PodPreset struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is immutable: delete and recreate the preset to change it (R1.7).
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable: delete and recreate the PodPreset to change it"
	Spec PodPresetSpec `json:"spec"`
}

// PodPresetSpec describes what a PodPreset injects and into which pods.
//
// +kubebuilder:validation:XValidation:rule="(has(self.env) && size(self.env) > 0) || (has(self.envFrom) && size(self.envFrom) > 0) || (has(self.volumes) && size(self.volumes) > 0) || (has(self.volumeMounts) && size(self.volumeMounts) > 0)",message="at least one of env, envFrom, volumes or volumeMounts must be set"
type PodPresetSpec struct {
	// Selector is a label query over pods in the preset's namespace. Required;
	// the empty selector {} matches every pod (R1.3).
	// +required
	Selector metav1.LabelSelector `json:"selector"`

	// Env is injected into every container and init container. Names are
	// unique (R1.5).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Env []corev1.EnvVar `json:"env,omitempty"`

	// EnvFrom is injected into every container and init container. Keys
	// (prefix and source name, R3.5) are unique, checked by one CEL rule per
	// index added by hack/crdpatch.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	EnvFrom []corev1.EnvFromSource `json:"envFrom,omitempty"`

	// Volumes are added to the pod. Names are unique.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Volumes []corev1.Volume `json:"volumes,omitempty"`

	// VolumeMounts are injected into every container and init container; each
	// names a volume of this preset, and no other mount of it (checked by CEL
	// rules per index, added by hack/crdpatch, so the message names the exact
	// path). Mount paths are unique.
	// +optional
	// +listType=map
	// +listMapKey=mountPath
	// +kubebuilder:validation:MaxItems=64
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
}

// PodPresetList is a list of PodPresets.
//
// +kubebuilder:object:root=true
type PodPresetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PodPreset `json:"items"`
}
