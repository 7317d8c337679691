package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodDefaultSpec is what a PodDefault injects and into which pods. The
// selector is required (its json tag has no omitempty); besides the
// PodPreset fields it carries containers, a service account, annotations,
// labels, tolerations, a command and pull secrets, which the harness never
// writes.
type PodDefaultSpec struct {
	Selector metav1.LabelSelector `json:"selector"`
	// +optional
	Desc string `json:"desc,omitempty"`
	// +optional
	InitContainers []corev1.Container `json:"initContainers,omitempty"`
	// +optional
	Sidecars []corev1.Container `json:"sidecars,omitempty"`
	// +optional
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// +optional
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// +optional
	EnvFrom []corev1.EnvFromSource `json:"envFrom,omitempty"`
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// +optional
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`
	Annotations  map[string]string    `json:"annotations,omitempty"`
	Labels       map[string]string    `json:"labels,omitempty"`
	Tolerations  []corev1.Toleration  `json:"tolerations,omitempty"`
	Command      []string             `json:"command,omitempty"`
	Args         []string             `json:"args,omitempty"`
	// ImagePullSecrets are added to the pod's.
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// PodDefaultStatus is empty.
type PodDefaultStatus struct{}

// PodDefault is Kubeflow's preset. It has no status subresource.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=poddefaults,scope=Namespaced
type PodDefault struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PodDefaultSpec   `json:"spec,omitempty"`
	Status PodDefaultStatus `json:"status,omitempty"`
}
