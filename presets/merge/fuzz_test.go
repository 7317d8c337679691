package merge

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// fuzzInput builds a pod and presets from bytes, with names from tiny
// alphabets so that keys collide often: identical items, conflicts and
// fresh items all occur.
type fuzzInput struct {
	data []byte
	i    int
}

func (in *fuzzInput) next() int {
	if in.i >= len(in.data) {
		return 0
	}
	b := in.data[in.i]
	in.i++
	return int(b)
}

func (in *fuzzInput) env() corev1.EnvVar {
	return corev1.EnvVar{Name: fmt.Sprintf("E%d", in.next()%3), Value: fmt.Sprintf("v%d", in.next()%2)}
}

func (in *fuzzInput) mount() corev1.VolumeMount {
	return corev1.VolumeMount{Name: fmt.Sprintf("vol%d", in.next()%3), MountPath: fmt.Sprintf("/m%d", in.next()%3), ReadOnly: in.next()%2 == 0}
}

func (in *fuzzInput) volume() corev1.Volume {
	return corev1.Volume{Name: fmt.Sprintf("vol%d", in.next()%3), VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMedium([]string{"", "Memory"}[in.next()%2])}}}
}

func (in *fuzzInput) envFrom() corev1.EnvFromSource {
	return corev1.EnvFromSource{Prefix: fmt.Sprintf("P%d_", in.next()%2),
		ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: fmt.Sprintf("cm%d", in.next()%2)}}}
}

func (in *fuzzInput) container(name string) corev1.Container {
	c := corev1.Container{Name: name, Image: "i"}
	for n := in.next() % 3; n > 0; n-- {
		c.Env = append(c.Env, in.env())
	}
	for n := in.next() % 2; n > 0; n-- {
		c.EnvFrom = append(c.EnvFrom, in.envFrom())
	}
	for n := in.next() % 3; n > 0; n-- {
		c.VolumeMounts = append(c.VolumeMounts, in.mount())
	}
	return c
}

func (in *fuzzInput) pod() *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "a"}}}
	if in.next()%2 == 0 {
		p.Spec.InitContainers = []corev1.Container{in.container("init")}
	}
	p.Spec.Containers = []corev1.Container{in.container("c0")}
	if in.next()%2 == 0 {
		p.Spec.Containers = append(p.Spec.Containers, in.container("c1"))
	}
	for n := in.next() % 3; n > 0; n-- {
		p.Spec.Volumes = append(p.Spec.Volumes, in.volume())
	}
	return p
}

func (in *fuzzInput) presets() []*v1alpha1.PodPreset {
	var out []*v1alpha1.PodPreset
	for n := in.next()%3 + 1; n > 0; n-- {
		pp := &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pp%d", len(out)), ResourceVersion: "1"},
			Spec: v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}
		for k := in.next() % 3; k > 0; k-- {
			pp.Spec.Env = append(pp.Spec.Env, in.env())
		}
		for k := in.next() % 2; k > 0; k-- {
			pp.Spec.EnvFrom = append(pp.Spec.EnvFrom, in.envFrom())
		}
		for k := in.next() % 3; k > 0; k-- {
			v := in.volume()
			pp.Spec.Volumes = append(pp.Spec.Volumes, v)
			pp.Spec.VolumeMounts = append(pp.Spec.VolumeMounts, corev1.VolumeMount{Name: v.Name, MountPath: fmt.Sprintf("/m%d", in.next()%3)})
		}
		out = append(out, pp)
	}
	return out
}

// FuzzApply checks the merge engine's invariants on generated pods and
// presets: it never panics; a conflict leaves the pod exactly as submitted
// (R4.2); applying again to the result changes nothing (R3.8); nothing the
// pod had is lost or moved (R3.3, R4.4); and the inputs are not modified.
func FuzzApply(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 0, 1, 1, 2, 2, 1, 0, 1, 2, 1, 0, 0, 2, 1, 1, 2})
	f.Add([]byte{0, 2, 1, 1, 0, 2, 0, 1, 1, 0, 2, 2, 2, 1, 0, 1, 0, 2, 1, 1, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{data: data}
		pod := in.pod()
		presets := in.presets()
		podBefore := pod.DeepCopy()
		presetsBefore := make([]*v1alpha1.PodPreset, len(presets))
		for i, p := range presets {
			presetsBefore[i] = p.DeepCopy()
		}

		r := Apply(pod, presets)

		if !equality.Semantic.DeepEqual(pod, podBefore) {
			t.Fatalf("Apply modified its pod argument")
		}
		for i := range presets {
			if !equality.Semantic.DeepEqual(presets[i], presetsBefore[i]) {
				t.Fatalf("Apply modified preset %d", i)
			}
		}
		if len(r.Conflicts) > 0 {
			if !equality.Semantic.DeepEqual(r.Pod, pod) {
				t.Fatalf("a conflict changed the pod: %v", r.Conflicts)
			}
			if len(r.Applied) != 0 {
				t.Fatalf("a conflict still applied %v", r.Applied)
			}
			return
		}
		again := Apply(r.Pod, presets)
		if len(again.Conflicts) > 0 || !equality.Semantic.DeepEqual(again.Pod, r.Pod) {
			t.Fatalf("applying twice differs from once (conflicts %v)", again.Conflicts)
		}
		keepsPrefix := func(what string, before, after int, same func(i int) bool) {
			if after < before {
				t.Fatalf("%s: %d items became %d", what, before, after)
			}
			for i := 0; i < before; i++ {
				if !same(i) {
					t.Fatalf("%s: item %d changed or moved", what, i)
				}
			}
		}
		keepsPrefix("volumes", len(pod.Spec.Volumes), len(r.Pod.Spec.Volumes), func(i int) bool {
			return equality.Semantic.DeepEqual(pod.Spec.Volumes[i], r.Pod.Spec.Volumes[i])
		})
		for _, pair := range [][2][]corev1.Container{{pod.Spec.InitContainers, r.Pod.Spec.InitContainers}, {pod.Spec.Containers, r.Pod.Spec.Containers}} {
			for ci := range pair[0] {
				b, a := pair[0][ci], pair[1][ci]
				keepsPrefix(b.Name+" env", len(b.Env), len(a.Env), func(i int) bool { return equality.Semantic.DeepEqual(b.Env[i], a.Env[i]) })
				keepsPrefix(b.Name+" envFrom", len(b.EnvFrom), len(a.EnvFrom), func(i int) bool { return equality.Semantic.DeepEqual(b.EnvFrom[i], a.EnvFrom[i]) })
				keepsPrefix(b.Name+" volumeMounts", len(b.VolumeMounts), len(a.VolumeMounts), func(i int) bool {
					return equality.Semantic.DeepEqual(b.VolumeMounts[i], a.VolumeMounts[i])
				})
			}
		}
	})
}
