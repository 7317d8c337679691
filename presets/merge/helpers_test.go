package merge

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Builders for the fixtures of the tests. Each call returns fresh objects, so
// a test can build the input and the expected pod independently.

type podOption func(*corev1.Pod)

// newPod returns the pod "website" (label app=website) with the given options
// applied; without options it has no containers, volumes or annotations.
func newPod(opts ...podOption) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      "website",
			Namespace: "default",
			Labels:    map[string]string{"app": "website"},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withContainers(cs ...corev1.Container) podOption {
	return func(p *corev1.Pod) { p.Spec.Containers = append(p.Spec.Containers, cs...) }
}

func withInitContainers(cs ...corev1.Container) podOption {
	return func(p *corev1.Pod) { p.Spec.InitContainers = append(p.Spec.InitContainers, cs...) }
}

func withEphemeralContainers(cs ...corev1.Container) podOption {
	return func(p *corev1.Pod) {
		for _, c := range cs {
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers,
				corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon(c)})
		}
	}
}

func withVolumes(vs ...corev1.Volume) podOption {
	return func(p *corev1.Pod) { p.Spec.Volumes = append(p.Spec.Volumes, vs...) }
}

// withAnnotations takes key, value pairs.
func withAnnotations(kv ...string) podOption {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Annotations[kv[i]] = kv[i+1]
		}
	}
}

func withLabels(kv ...string) podOption {
	return func(p *corev1.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

type containerOption func(*corev1.Container)

func newContainer(name string, opts ...containerOption) corev1.Container {
	c := corev1.Container{Name: name, Image: "nginx"}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func withEnv(es ...corev1.EnvVar) containerOption {
	return func(c *corev1.Container) { c.Env = append(c.Env, es...) }
}

func withEnvFrom(es ...corev1.EnvFromSource) containerOption {
	return func(c *corev1.Container) { c.EnvFrom = append(c.EnvFrom, es...) }
}

func withMounts(ms ...corev1.VolumeMount) containerOption {
	return func(c *corev1.Container) { c.VolumeMounts = append(c.VolumeMounts, ms...) }
}

func env(name, value string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, Value: value}
}

func configMapEnv(prefix, name string) corev1.EnvFromSource {
	return corev1.EnvFromSource{
		Prefix:       prefix,
		ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}},
	}
}

func secretEnv(prefix, name string) corev1.EnvFromSource {
	return corev1.EnvFromSource{
		Prefix:    prefix,
		SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}},
	}
}

func emptyDir(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

func configMapVolume(name, configMap string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: configMap},
	}}}
}

func mount(name, path string) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: path}
}

func newPreset(name, resourceVersion string, spec v1alpha1.PodPresetSpec) *v1alpha1.PodPreset {
	return &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: resourceVersion},
		Spec:       spec,
	}
}

func matchLabels(kv ...string) metav1.LabelSelector {
	s := metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

func names(presets []*v1alpha1.PodPreset) []string {
	var out []string
	for _, p := range presets {
		out = append(out, p.Name)
	}
	return out
}
