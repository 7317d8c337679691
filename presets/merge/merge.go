package merge

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// AnnotationPrefix is the prefix of every annotation this package reads or writes.
const AnnotationPrefix = "podpreset.admission.kubernetes.io/"

// ExcludeAnnotation, set to exactly "true" on a pod, opts the pod out of all
// presets (R2.4). The check belongs to the admission plug-in, not to Apply.
const ExcludeAnnotation = AnnotationPrefix + "exclude"

// Values of Conflict.Field.
const (
	fieldEnv          = "env"
	fieldEnvFrom      = "envFrom"
	fieldVolumes      = "volumes"
	fieldVolumeMounts = "volumeMounts"
)

// Prefixes of Conflict.Key for volumeMounts, which have two keys.
const (
	mountNameKey = "name "
	mountPathKey = "mountPath "
)

// AnnotationKey returns the pod annotation that records that the named preset
// was applied (R3.7): AnnotationPrefix + "podpreset-" + presetName.
func AnnotationKey(presetName string) string {
	return AnnotationPrefix + "podpreset-" + presetName
}

// Select returns the presets whose selector matches the pod's labels, sorted
// by name in byte order (R2.3, R3.6). The empty selector matches every pod.
//
// Presets whose selector cannot be converted (metav1.LabelSelectorAsSelector
// fails) are skipped and reported in the returned error, one joined error per
// preset; the presets that do match are returned all the same. Nil presets are
// ignored. Select does not look at namespaces: the caller passes the presets of
// the pod's namespace (R2.2).
func Select(pod *corev1.Pod, presets []*v1alpha1.PodPreset) ([]*v1alpha1.PodPreset, error) {
	var podLabels labels.Set
	if pod != nil {
		podLabels = labels.Set(pod.Labels)
	}
	var (
		matched []*v1alpha1.PodPreset
		errs    []error
	)
	for _, p := range presets {
		if p == nil {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(&p.Spec.Selector)
		if err != nil {
			errs = append(errs, fmt.Errorf("pod preset %s/%s has an invalid selector: %w", p.Namespace, p.Name, err))
			continue
		}
		if selector.Matches(podLabels) {
			matched = append(matched, p)
		}
	}
	slices.SortStableFunc(matched, func(a, b *v1alpha1.PodPreset) int {
		return strings.Compare(a.Name, b.Name)
	})
	return matched, errors.Join(errs...)
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
}

// String describes the conflict, e.g. "duplicate mountPath /cache in container website".
func (c Conflict) String() string {
	var b strings.Builder
	b.WriteString("duplicate ")
	switch c.Field {
	case fieldEnv:
		b.WriteString("env ")
	case fieldEnvFrom:
		b.WriteString("envFrom ")
	case fieldVolumes:
		b.WriteString("volume ")
	case fieldVolumeMounts:
		if !strings.HasPrefix(c.Key, mountPathKey) {
			b.WriteString("volumeMount ")
		}
	default:
		b.WriteString(c.Field + " ")
	}
	b.WriteString(c.Key)
	if c.Container != "" {
		b.WriteString(" in container ")
		b.WriteString(c.Container)
	}
	return b.String()
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

// Result is the outcome of Apply.
type Result struct {
	// Pod is always a new object (a deep copy). It equals the input when
	// Conflicts is non-empty or when no preset was given.
	Pod *corev1.Pod
	// Applied holds the names of the presets applied, in order; it is empty
	// when there is any conflict.
	Applied []string
	// Conflicts lists every conflict found, without duplicates, ordered by
	// preset, then pod volumes, then init containers and containers in pod
	// order, then env, envFrom, volumeMounts, then item order.
	Conflicts []Conflict
}

// Apply merges the presets, in the order given, into a copy of pod (callers
// use Select first to pick and order them). If any preset conflicts, no preset
// is applied (R4.2). Preset items are compared and injected in their
// defaulted form (Defaulted), as the pod's own items were defaulted by the API
// server. Apply never mutates its arguments; nil presets are ignored and a nil
// pod yields a Result with a nil Pod.
func Apply(pod *corev1.Pod, presets []*v1alpha1.PodPreset) Result {
	if pod == nil {
		return Result{}
	}
	out := pod.DeepCopy()

	volumes := newMerger(fieldVolumes, out.Spec.Volumes, volumeKeys)
	var containers []*containerMerger
	for i := range out.Spec.InitContainers {
		containers = append(containers, newContainerMerger(&out.Spec.InitContainers[i]))
	}
	for i := range out.Spec.Containers {
		containers = append(containers, newContainerMerger(&out.Spec.Containers[i]))
	}

	var (
		applied   []string
		conflicts []Conflict
		seen      = map[Conflict]bool{}
	)
	report := func(preset, container, field string, keys []string) {
		for _, k := range keys {
			c := Conflict{Preset: preset, Container: container, Field: field, Key: k}
			if !seen[c] {
				seen[c] = true
				conflicts = append(conflicts, c)
			}
		}
	}
	for _, p := range presets {
		if p == nil {
			continue
		}
		// Compare and inject the items as the API server would have
		// defaulted them (R3.4); see Defaulted.
		p = defaultedOnce(p)
		for i := range p.Spec.Volumes {
			report(p.Name, "", fieldVolumes, volumes.add(&p.Spec.Volumes[i]))
		}
		for _, c := range containers {
			for i := range p.Spec.Env {
				report(p.Name, c.container.Name, fieldEnv, c.env.add(&p.Spec.Env[i]))
			}
			for i := range p.Spec.EnvFrom {
				report(p.Name, c.container.Name, fieldEnvFrom, c.envFrom.add(&p.Spec.EnvFrom[i]))
			}
			for i := range p.Spec.VolumeMounts {
				report(p.Name, c.container.Name, fieldVolumeMounts, c.volumeMounts.add(&p.Spec.VolumeMounts[i]))
			}
		}
		applied = append(applied, p.Name)
	}
	if len(conflicts) > 0 {
		return Result{Pod: pod.DeepCopy(), Conflicts: conflicts}
	}

	out.Spec.Volumes = volumes.items
	for _, c := range containers {
		c.container.Env = c.env.items
		c.container.EnvFrom = c.envFrom.items
		c.container.VolumeMounts = c.volumeMounts.items
	}
	for _, p := range presets {
		if p == nil {
			continue
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[AnnotationKey(p.Name)] = p.ResourceVersion
	}
	return Result{Pod: out, Applied: applied}
}

// containerMerger holds the lists of one container (or init container) while
// presets are merged into it.
type containerMerger struct {
	container    *corev1.Container
	env          *merger[corev1.EnvVar, *corev1.EnvVar]
	envFrom      *merger[corev1.EnvFromSource, *corev1.EnvFromSource]
	volumeMounts *merger[corev1.VolumeMount, *corev1.VolumeMount]
}

func newContainerMerger(c *corev1.Container) *containerMerger {
	return &containerMerger{
		container:    c,
		env:          newMerger(fieldEnv, c.Env, envKeys),
		envFrom:      newMerger(fieldEnvFrom, c.EnvFrom, envFromKeys),
		volumeMounts: newMerger(fieldVolumeMounts, c.VolumeMounts, volumeMountKeys),
	}
}

// keyID identifies an item by one of its keys (R3.5) without building a
// string: kind tells the keys of one list apart (a volume mount's name from
// its path), a, b and c hold the key's parts.
type keyID struct {
	kind    uint8
	a, b, c string
}

// itemKeys holds an item's keys: one, or two for a volume mount.
type itemKeys struct {
	ids [2]keyID
	n   int
}

func oneKey(id keyID) itemKeys { return itemKeys{ids: [2]keyID{id}, n: 1} }

func envKeys(e *corev1.EnvVar) itemKeys { return oneKey(keyID{a: e.Name}) }

func volumeKeys(v *corev1.Volume) itemKeys { return oneKey(keyID{a: v.Name}) }

const (
	mountByName uint8 = iota + 1
	mountByPath
)

func volumeMountKeys(m *corev1.VolumeMount) itemKeys {
	return itemKeys{ids: [2]keyID{{kind: mountByName, a: m.Name}, {kind: mountByPath, a: m.MountPath}}, n: 2}
}

func envFromKeys(e *corev1.EnvFromSource) itemKeys {
	id := keyID{a: e.Prefix}
	if e.ConfigMapRef != nil {
		id.b = e.ConfigMapRef.Name
	}
	if e.SecretRef != nil {
		id.c = e.SecretRef.Name
	}
	return oneKey(id)
}

// keyLabel is how a key is shown in Conflict.Key; built only for conflicts.
func keyLabel(field string, id keyID) string {
	switch field {
	case fieldVolumeMounts:
		if id.kind == mountByName {
			return mountNameKey + id.a
		}
		return mountPathKey + id.a
	case fieldEnvFrom:
		var label []string
		if id.a != "" {
			label = append(label, "prefix "+id.a)
		}
		if id.b != "" {
			label = append(label, "configMapRef "+id.b)
		}
		if id.c != "" {
			label = append(label, "secretRef "+id.c)
		}
		if len(label) == 0 {
			return "without source"
		}
		return strings.Join(label, " ")
	}
	return id.a
}

// copier is satisfied by pointers to the generated Kubernetes API types.
type copier[T any] interface {
	*T
	DeepCopy() *T
}

// merger is one list (the pod's volumes, or a container's env, envFrom or
// volumeMounts) with an index of the keys of everything it holds.
type merger[T any, P copier[T]] struct {
	field string
	items []T
	index map[keyID][]int // key -> positions in items
	keys  func(P) itemKeys
}

func newMerger[T any, P copier[T]](field string, items []T, keys func(P) itemKeys) *merger[T, P] {
	m := &merger[T, P]{field: field, items: items, keys: keys}
	for i := range m.items {
		k := keys(P(&m.items[i]))
		for _, id := range k.ids[:k.n] {
			if m.index == nil {
				m.index = make(map[keyID][]int, len(m.items)*k.n)
			}
			m.index[id] = append(m.index[id], i)
		}
	}
	return m
}

// add appends a copy of item unless an identical item is already present. It
// returns the labels of the keys item shares with existing, different items;
// then item is not added.
func (m *merger[T, P]) add(item P) []string {
	k := m.keys(item)
	ids := k.ids[:k.n]
	for _, id := range ids {
		for _, i := range m.index[id] {
			if equality.Semantic.DeepEqual(m.items[i], *item) {
				return nil
			}
		}
	}
	var conflicts []string
	for _, id := range ids {
		if len(m.index[id]) > 0 {
			conflicts = append(conflicts, keyLabel(m.field, id))
		}
	}
	if len(conflicts) > 0 {
		return conflicts
	}
	m.items = append(m.items, *item.DeepCopy())
	if m.index == nil {
		m.index = map[keyID][]int{}
	}
	for _, id := range ids {
		m.index[id] = append(m.index[id], len(m.items)-1)
	}
	return nil
}
