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

	volumes := newMerger(out.Spec.Volumes, volumeKeys)
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
		p = Defaulted(p)
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
		env:          newMerger(c.Env, envKeys),
		envFrom:      newMerger(c.EnvFrom, envFromKeys),
		volumeMounts: newMerger(c.VolumeMounts, volumeMountKeys),
	}
}

// itemKey is one key of an item: id is compared, label is shown in Conflict.Key.
type itemKey struct {
	id, label string
}

func envKeys(e *corev1.EnvVar) []itemKey {
	return []itemKey{{id: e.Name, label: e.Name}}
}

func volumeKeys(v *corev1.Volume) []itemKey {
	return []itemKey{{id: v.Name, label: v.Name}}
}

func volumeMountKeys(m *corev1.VolumeMount) []itemKey {
	return []itemKey{
		{id: "name\x00" + m.Name, label: mountNameKey + m.Name},
		{id: "path\x00" + m.MountPath, label: mountPathKey + m.MountPath},
	}
}

func envFromKeys(e *corev1.EnvFromSource) []itemKey {
	var configMap, secret string
	var label []string
	if e.Prefix != "" {
		label = append(label, "prefix "+e.Prefix)
	}
	if e.ConfigMapRef != nil {
		configMap = e.ConfigMapRef.Name
		label = append(label, "configMapRef "+configMap)
	}
	if e.SecretRef != nil {
		secret = e.SecretRef.Name
		label = append(label, "secretRef "+secret)
	}
	if len(label) == 0 {
		label = append(label, "without source")
	}
	return []itemKey{{
		id:    e.Prefix + "\x00" + configMap + "\x00" + secret,
		label: strings.Join(label, " "),
	}}
}

// copier is satisfied by pointers to the generated Kubernetes API types.
type copier[T any] interface {
	*T
	DeepCopy() *T
}

// merger is one list (the pod's volumes, or a container's env, envFrom or
// volumeMounts) with an index of the keys of everything it holds.
type merger[T any, P copier[T]] struct {
	items []T
	index map[string][]int // key id -> positions in items
	keys  func(P) []itemKey
}

func newMerger[T any, P copier[T]](items []T, keys func(P) []itemKey) *merger[T, P] {
	m := &merger[T, P]{items: items, index: map[string][]int{}, keys: keys}
	for i := range m.items {
		for _, k := range keys(P(&m.items[i])) {
			m.index[k.id] = append(m.index[k.id], i)
		}
	}
	return m
}

// add appends a copy of item unless an identical item is already present. It
// returns the labels of the keys item shares with existing, different items;
// then item is not added.
func (m *merger[T, P]) add(item P) []string {
	keys := m.keys(item)
	for _, k := range keys {
		for _, i := range m.index[k.id] {
			if equality.Semantic.DeepEqual(m.items[i], *item) {
				return nil
			}
		}
	}
	var conflicts []string
	for _, k := range keys {
		if len(m.index[k.id]) > 0 {
			conflicts = append(conflicts, k.label)
		}
	}
	if len(conflicts) > 0 {
		return conflicts
	}
	m.items = append(m.items, *item.DeepCopy())
	for _, k := range keys {
		m.index[k.id] = append(m.index[k.id], len(m.items)-1)
	}
	return nil
}
