package merge

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Names of the lists, as Conflict.Field gives them.
const (
	fieldEnv          = "env"
	fieldEnvFrom      = "envFrom"
	fieldVolumes      = "volumes"
	fieldVolumeMounts = "volumeMounts"
)

// key is one key of the items of a list (R3.5): two items share it when of
// gives them the same value. label is how Conflict.Key shows it.
type key[T any] struct {
	of    func(*T) [3]string
	label func(*T) string
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
var envFromKeys = []key[corev1.EnvFromSource]{{of: envFromKey, label: EnvFromLabel}}

func envFromKey(e *corev1.EnvFromSource) [3]string {
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
// set, as Conflict.Key shows them, e.g.
// "prefix DB_ configMapRef db-env" or "secretRef db-creds".
func EnvFromLabel(e *corev1.EnvFromSource) string {
	k := envFromKey(e)
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

// Conflict is an item of a preset that has the same key as an item already
// present (in the pod, from an earlier preset or earlier in the same preset)
// but different content (R4.1).
type Conflict struct {
	// Preset is the name of the preset whose item conflicts.
	Preset string
	// Container is the name of the container or init container; "" for
	// pod-level items (volumes).
	Container string
	// Field is one of "env", "envFrom", "volumes", "volumeMounts".
	Field string
	// Key is the human-readable key of the item:
	//   - env, volumes: the name;
	//   - volumeMounts: "name <name>" or "mountPath <path>";
	//   - envFrom: the set parts of the tuple, e.g. "prefix DB_ configMapRef db-env"
	//     or "secretRef db-creds".
	Key string
	// Injected is the preset's item, and Existing the item already in the
	// list that shares the key, each as compact JSON: what an explanation
	// shows side by side.
	Injected, Existing string
}

// String describes the conflict, e.g. "duplicate mountPath /cache in container website".
func (c Conflict) String() string {
	var what string
	switch {
	case c.Field == fieldEnv:
		what = "env "
	case c.Field == fieldEnvFrom:
		what = "envFrom "
	case c.Field == fieldVolumes:
		what = "volume "
	case c.Field == fieldVolumeMounts && strings.HasPrefix(c.Key, "mountPath "):
		what = "" // "duplicate mountPath /cache" reads on its own
	case c.Field == fieldVolumeMounts:
		what = "volumeMount "
	default:
		what = c.Field + " "
	}
	s := "duplicate " + what + c.Key
	if c.Container != "" {
		s += " in container " + c.Container
	}
	return s
}

// conflictList collects conflicts in order, each (preset, container,
// field, key) once, with the items of its first occurrence.
type conflictList []Conflict

// add records a conflict for each shared key, unless already recorded.
func (l *conflictList) add(preset, container, field string, keys []sharedKey) {
	for _, k := range keys {
		c := Conflict{Preset: preset, Container: container, Field: field, Key: k.label, Injected: k.injected, Existing: k.existing}
		if !slices.ContainsFunc(*l, func(o Conflict) bool {
			return o.Preset == c.Preset && o.Container == c.Container && o.Field == c.Field && o.Key == c.Key
		}) {
			*l = append(*l, c)
		}
	}
}

// Messages groups conflicts by preset, in order of first appearance, and
// returns one message per preset:
// "Conflict on pod preset <name>: <conflict>; <conflict>". This is the text of
// the PodPresetConflict event and of the admission warning (R4.3).
func Messages(conflicts []Conflict) []string {
	var (
		order  []string
		byName = map[string][]string{}
	)
	for _, c := range conflicts {
		if _, seen := byName[c.Preset]; !seen {
			order = append(order, c.Preset)
		}
		byName[c.Preset] = append(byName[c.Preset], c.String())
	}
	var msgs []string
	for _, name := range order {
		msgs = append(msgs, fmt.Sprintf("Conflict on pod preset %s: %s", name, strings.Join(byName[name], "; ")))
	}
	return msgs
}
