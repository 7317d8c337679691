package merge

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"presetsim.dev/presetsim/presets/conflict"
)

// key is one key of the items of a list (R3.5): two items share it when of
// gives them the same value. label is how conflict.Item.Key shows it.
type key[T any] struct {
	of    func(*T) [3]string
	label func(*T) string
	// same, when set, tells identical items apart instead of deep
	// equality (R3.4).
	same func(a, b *T) bool
}

// identical reports whether two items sharing the key are the same item
// (R3.4): deeply equal, unless the key says otherwise.
func (k key[T]) identical(a, b *T) bool {
	if k.same != nil {
		return k.same(a, b)
	}
	return equality.Semantic.DeepEqual(*a, *b)
}

// envKeys: an env var is keyed by its name, case-sensitive.
var envKeys = []key[corev1.EnvVar]{{
	of:    func(e *corev1.EnvVar) [3]string { return [3]string{e.Name} },
	label: func(e *corev1.EnvVar) string { return e.Name },
}}

// volumeKeys: a volume is keyed by its name.
var volumeKeys = []key[corev1.Volume]{{
	of:    func(v *corev1.Volume) [3]string { return [3]string{v.Name} },
	label: func(v *corev1.Volume) string { return v.Name },
}}

// volumeMountKeys: a volume mount has two keys, its name and, separately,
// its mountPath; it can conflict on either or both.
var volumeMountKeys = []key[corev1.VolumeMount]{{
	of:    func(m *corev1.VolumeMount) [3]string { return [3]string{m.Name} },
	label: func(m *corev1.VolumeMount) string { return "name " + m.Name },
}, {
	of:    func(m *corev1.VolumeMount) [3]string { return [3]string{m.MountPath} },
	label: func(m *corev1.VolumeMount) string { return "mountPath " + m.MountPath },
}}

// envFromKeys: an envFrom entry is keyed by the tuple (prefix,
// configMapRef.name, secretRef.name); a missing reference counts as "".
var envFromKeys = []key[corev1.EnvFromSource]{{of: EnvFromKey, label: EnvFromLabel}}

// EnvFromKey is an envFrom entry's key (R3.5): its prefix, the name of its
// ConfigMap and the name of its Secret, each "" when absent.
func EnvFromKey(e *corev1.EnvFromSource) [3]string {
	k := [3]string{e.Prefix}
	if e.ConfigMapRef != nil {
		k[1] = e.ConfigMapRef.Name
	}
	if e.SecretRef != nil {
		k[2] = e.SecretRef.Name
	}
	return k
}

// EnvFromLabel names the parts of an envFrom entry's key (R3.5) that are
// set, as conflict.Item.Key shows them, e.g.
// "prefix DB_ configMapRef db-env" or "secretRef db-creds".
func EnvFromLabel(e *corev1.EnvFromSource) string {
	k := EnvFromKey(e)
	var parts []string
	for i, name := range []string{"prefix", "configMapRef", "secretRef"} {
		if k[i] != "" {
			parts = append(parts, name+" "+k[i])
		}
	}
	if len(parts) == 0 {
		return "without source"
	}
	return strings.Join(parts, " ")
}

// conflictList collects conflicts in order, each (preset, container,
// field, key) once, with the items of its first occurrence.
type conflictList []conflict.Item

// add records a conflict for each shared key, unless already recorded.
func (l *conflictList) add(preset, container, field string, keys []sharedKey) {
	for _, k := range keys {
		c := conflict.Item{Preset: preset, Container: container, Field: field, Key: k.label, Injected: k.injected, Existing: k.existing}
		if !slices.ContainsFunc(*l, func(o conflict.Item) bool {
			return o.Preset == c.Preset && o.Container == c.Container && o.Field == c.Field && o.Key == c.Key
		}) {
			*l = append(*l, c)
		}
	}
}

// The keys of a variant: the specification's, unless it breaks one.

func (v Variant) envKeys() []key[corev1.EnvVar] {
	if !v.EnvNamesFolded {
		return envKeys
	}
	folded := func(e *corev1.EnvVar) corev1.EnvVar {
		f := *e
		f.Name = strings.ToLower(f.Name)
		return f
	}
	return []key[corev1.EnvVar]{{
		of:    func(e *corev1.EnvVar) [3]string { return [3]string{strings.ToLower(e.Name)} },
		label: func(e *corev1.EnvVar) string { return e.Name },
		same:  func(a, b *corev1.EnvVar) bool { return equality.Semantic.DeepEqual(folded(a), folded(b)) },
	}}
}

func (v Variant) envFromKeys() []key[corev1.EnvFromSource] {
	if !v.EnvFromPrefixIgnored {
		return envFromKeys
	}
	return []key[corev1.EnvFromSource]{{
		of: func(e *corev1.EnvFromSource) [3]string {
			k := EnvFromKey(e)
			k[0] = ""
			return k
		},
		label: EnvFromLabel,
	}}
}

func (v Variant) volumeMountKeys() []key[corev1.VolumeMount] {
	if !v.MountPathsUnkeyed {
		return volumeMountKeys
	}
	return volumeMountKeys[:1]
}
