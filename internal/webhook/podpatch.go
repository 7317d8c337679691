package webhook

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// patchOp is one operation of a JSON patch (RFC 6902).
type patchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// podPatch is the JSON patch from original to mutated when they differ only
// where a PodPreset writes: annotations added or changed, and items appended
// to spec.volumes and to each init or app container's env, envFrom and
// volumeMounts. It reports false for any other difference, and the caller
// then diffs the whole pod.
//
// It is cheaper than that diff (only the new items are encoded), and it
// appends instead of rewriting lists: an item the API server sent with a
// field this build's types do not know (a newer volume source, say) is left
// as the server has it. Every operation is an "add": on an object member it
// sets the member whether or not it exists, and "/-" appends to an array.
// No operations means the two are equal.
func podPatch(original, mutated *corev1.Pod) (ops []patchOp, ok bool) {
	if len(original.Spec.InitContainers) != len(mutated.Spec.InitContainers) ||
		len(original.Spec.Containers) != len(mutated.Spec.Containers) {
		return nil, false
	}
	// Everything but the preset's fields must be equal: compare mutated with
	// those fields taken from original (shallow copies; nothing is written
	// through them).
	rest := *mutated
	rest.Annotations = original.Annotations
	rest.Spec.Volumes = original.Spec.Volumes
	rest.Spec.InitContainers = withListsOf(mutated.Spec.InitContainers, original.Spec.InitContainers)
	rest.Spec.Containers = withListsOf(mutated.Spec.Containers, original.Spec.Containers)
	if !equality.Semantic.DeepEqual(original, &rest) {
		return nil, false
	}

	if !annotationOps(&ops, original.Annotations, mutated.Annotations) ||
		!appendOps(&ops, "/spec/volumes", original.Spec.Volumes, mutated.Spec.Volumes) {
		return nil, false
	}
	for _, list := range []struct {
		path          string
		before, after []corev1.Container
	}{
		{"/spec/initContainers/", original.Spec.InitContainers, mutated.Spec.InitContainers},
		{"/spec/containers/", original.Spec.Containers, mutated.Spec.Containers},
	} {
		for i := range list.before {
			b, a, p := &list.before[i], &list.after[i], list.path+strconv.Itoa(i)
			if !appendOps(&ops, p+"/env", b.Env, a.Env) || !appendOps(&ops, p+"/envFrom", b.EnvFrom, a.EnvFrom) ||
				!appendOps(&ops, p+"/volumeMounts", b.VolumeMounts, a.VolumeMounts) {
				return nil, false
			}
		}
	}
	return ops, true
}

// appendOps appends the operations that turn the list before, at path, into
// after, which must start with before's items (false if it does not).
func appendOps[T any](ops *[]patchOp, path string, before, after []T) bool {
	n := len(before)
	switch {
	case equality.Semantic.DeepEqual(before, after):
	case n == 0:
		*ops = append(*ops, patchOp{Op: "add", Path: path, Value: after})
	case len(after) < n || !equality.Semantic.DeepEqual(before, after[:n]):
		return false // an item changed or went away
	default:
		for i := n; i < len(after); i++ {
			*ops = append(*ops, patchOp{Op: "add", Path: path + "/-", Value: after[i]})
		}
	}
	return true
}

// withListsOf returns copies of containers with env, envFrom and
// volumeMounts taken from the container of the same index in from.
func withListsOf(containers, from []corev1.Container) []corev1.Container {
	if containers == nil {
		return nil
	}
	out := slices.Clone(containers)
	for i := range out {
		out[i].Env, out[i].EnvFrom, out[i].VolumeMounts = from[i].Env, from[i].EnvFrom, from[i].VolumeMounts
	}
	return out
}

// annotationOps appends the operations that turn before into after, which
// may add keys and change values but not remove keys (false if it does).
func annotationOps(ops *[]patchOp, before, after map[string]string) bool {
	if maps.Equal(before, after) {
		return true
	}
	if len(before) == 0 {
		*ops = append(*ops, patchOp{Op: "add", Path: "/metadata/annotations", Value: after})
		return true
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			return false
		}
	}
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if v, ok := before[k]; !ok || v != after[k] {
			*ops = append(*ops, patchOp{Op: "add", Path: "/metadata/annotations/" + escapePointer(k), Value: after[k]})
		}
	}
	return true
}

// pointerEscaper escapes a JSON pointer reference token (RFC 6901).
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapePointer(s string) string { return pointerEscaper.Replace(s) }
