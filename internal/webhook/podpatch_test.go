package webhook

import (
	"encoding/json"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/go-cmp/cmp"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// patchTestPod has an init and an app container, a volume, env, envFrom
// and mounts, and annotations.
const patchTestPod = `{"apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"website","namespace":"default","labels":{"app":"website"},"annotations":{"team":"web"}},
 "spec":{"volumes":[{"name":"data","emptyDir":{}}],
  "initContainers":[{"name":"init","image":"busybox"}],
  "containers":[{"name":"web","image":"nginx:1.27","env":[{"name":"LOG","value":"debug"}],
   "envFrom":[{"configMapRef":{"name":"base"}}],
   "volumeMounts":[{"name":"data","mountPath":"/data"}]}]}}`

// presetLike adds what a PodPreset adds: an annotation, a volume, and env,
// envFrom and a mount to every container.
func presetLike(key string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[key] = "7"
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
			for i := range cs {
				cs[i].Env = append(cs[i].Env, corev1.EnvVar{Name: "DB_PORT", Value: "6379"})
				cs[i].EnvFrom = append(cs[i].EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}})
				cs[i].VolumeMounts = append(cs[i].VolumeMounts, corev1.VolumeMount{Name: "cache", MountPath: "/cache"})
			}
		}
	}
}

func TestPodPatch(t *testing.T) {
	tests := []struct {
		name   string
		pod    string // JSON; patchTestPod when empty
		mutate func(*corev1.Pod)
		ok     bool     // podPatch can express the change
		paths  []string // the operations' paths, when ok
	}{
		{name: "nothing changed", mutate: func(*corev1.Pod) {}, ok: true},
		{name: "what a preset adds, to lists that have items", mutate: presetLike("podpreset.admission.kubernetes.io/podpreset-db"), ok: true,
			paths: []string{"/metadata/annotations/podpreset.admission.kubernetes.io~1podpreset-db", "/spec/volumes/-",
				"/spec/initContainers/0/env", "/spec/initContainers/0/envFrom", "/spec/initContainers/0/volumeMounts",
				"/spec/containers/0/env/-", "/spec/containers/0/envFrom/-", "/spec/containers/0/volumeMounts/-"}},
		{name: "what a preset adds, to a pod without annotations or volumes",
			pod:    `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
			mutate: presetLike("k"), ok: true,
			paths: []string{"/metadata/annotations", "/spec/volumes",
				"/spec/containers/0/env", "/spec/containers/0/envFrom", "/spec/containers/0/volumeMounts"}},
		{name: "an annotation key with ~ and /", mutate: func(p *corev1.Pod) { p.Annotations["a~b/c"] = "x" }, ok: true,
			paths: []string{"/metadata/annotations/a~0b~1c"}},
		{name: "an annotation value changed", mutate: func(p *corev1.Pod) { p.Annotations["team"] = "shop" }, ok: true,
			paths: []string{"/metadata/annotations/team"}},
		{name: "an annotation removed", mutate: func(p *corev1.Pod) { delete(p.Annotations, "team") }},
		{name: "an env var changed", mutate: func(p *corev1.Pod) { p.Spec.Containers[0].Env[0].Value = "info" }},
		{name: "an env var removed", mutate: func(p *corev1.Pod) { p.Spec.Containers[0].Env = nil }},
		{name: "an env var inserted before the others", mutate: func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = append([]corev1.EnvVar{{Name: "A", Value: "1"}}, p.Spec.Containers[0].Env...)
		}},
		{name: "a volume changed", mutate: func(p *corev1.Pod) { p.Spec.Volumes[0].Name = "other" }},
		{name: "an image changed", mutate: func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx:1.28" }},
		{name: "a container added", mutate: func(p *corev1.Pod) { p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "x"}) }},
		{name: "a label changed", mutate: func(p *corev1.Pod) { p.Labels["app"] = "shop" }},
		{name: "an ephemeral container's env changed", mutate: func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Env: []corev1.EnvVar{{Name: "A"}}}}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.pod
			if raw == "" {
				raw = patchTestPod
			}
			original := &corev1.Pod{}
			if err := json.Unmarshal([]byte(raw), original); err != nil {
				t.Fatal(err)
			}
			mutated := original.DeepCopy()
			tc.mutate(mutated)
			ops, ok := podPatch(original, mutated)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (ops %+v)", ok, tc.ok, ops)
			}
			if !ok {
				return
			}
			var paths []string
			for _, op := range ops {
				if op.Op != "add" {
					t.Errorf("operation %q, want only add", op.Op)
				}
				paths = append(paths, op.Path)
			}
			if diff := cmp.Diff(tc.paths, paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if got := applyOps(t, []byte(raw), ops); !equality.Semantic.DeepEqual(got, mutated) {
				t.Errorf("patched pod differs from the mutated one (-mutated +patched):\n%s", cmp.Diff(mutated, got))
			}
		})
	}
}

// TestPodPatchKeepsUnknownFields: an item the API server sent with a field
// these types do not know keeps it, since new items are appended.
func TestPodPatchKeepsUnknownFields(t *testing.T) {
	raw := strings.Replace(patchTestPod, `{"name":"data","emptyDir":{}}`, `{"name":"data","futureSource":{"x":1}}`, 1)
	original := &corev1.Pod{}
	if err := json.Unmarshal([]byte(raw), original); err != nil {
		t.Fatal(err)
	}
	mutated := original.DeepCopy()
	presetLike("k")(mutated)
	ops, ok := podPatch(original, mutated)
	if !ok {
		t.Fatal("podPatch cannot express a preset's changes")
	}
	patched := applyPatchBytes(t, []byte(raw), ops)
	if !strings.Contains(string(patched), `"futureSource":{"x":1}`) {
		t.Errorf("the unknown volume field is gone: %s", patched)
	}
}

func applyPatchBytes(t testing.TB, raw []byte, ops []patchOp) []byte {
	t.Helper()
	b, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonpatch.DecodePatch(b)
	if err != nil {
		t.Fatalf("undecodable patch %s: %v", b, err)
	}
	out, err := patch.Apply(raw)
	if err != nil {
		t.Fatalf("patch %s does not apply to %s: %v", b, raw, err)
	}
	return out
}

func applyOps(t testing.TB, raw []byte, ops []patchOp) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{}
	if err := json.Unmarshal(applyPatchBytes(t, raw, ops), pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

// FuzzPodPatch: for any pod, what a preset adds is expressed by podPatch,
// and its patch, applied to the pod as encoded, gives the mutated pod.
func FuzzPodPatch(f *testing.F) {
	f.Add([]byte(patchTestPod), "podpreset.admission.kubernetes.io/podpreset-db")
	f.Add([]byte(`{"spec":{"containers":[{"name":"c"}]}}`), "")
	f.Add([]byte(`{"metadata":{"annotations":{"~1":"x"}},"spec":{"initContainers":[{"name":"i","env":[]}]}}`), "~1")
	f.Fuzz(func(t *testing.T, raw []byte, key string) {
		original := &corev1.Pod{}
		if json.Unmarshal(raw, original) != nil {
			return
		}
		// Start from the pod as encoded, as the API server sends it.
		encoded, err := json.Marshal(original)
		if err != nil {
			return
		}
		// A key that came through JSON is valid UTF-8 (a preset's name is
		// part of it).
		key = strings.ToValidUTF8(key, "\uFFFD")
		mutated := original.DeepCopy()
		presetLike(key)(mutated)
		ops, ok := podPatch(original, mutated)
		if !ok {
			t.Fatalf("podPatch cannot express a preset's changes to %s", encoded)
		}
		if got := applyOps(t, encoded, ops); !equality.Semantic.DeepEqual(got, mutated) {
			t.Fatalf("patched pod differs from the mutated one (-mutated +patched):\n%s", cmp.Diff(mutated, got))
		}
	})
}
