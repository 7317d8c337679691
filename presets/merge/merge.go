package merge

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
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

// annotationKeyPrefix is what AnnotationKey puts before the preset's name.
const annotationKeyPrefix = AnnotationPrefix + "podpreset-"

// AnnotationKey returns the pod annotation that records that the named preset
// was applied (R3.7): AnnotationPrefix + "podpreset-" + presetName.
func AnnotationKey(presetName string) string {
	return annotationKeyPrefix + presetName
}

// Select returns the presets whose selector matches the pod's labels, sorted
// by name in byte order (R2.3, R3.6). The empty selector matches every pod.
//
// Presets whose selector cannot be converted (metav1.LabelSelectorAsSelector
// fails) are skipped and reported in the returned error, one joined error per
// preset; the presets that do match are returned all the same. Nil presets are
// ignored. Select does not look at namespaces: the caller passes the presets of
// the pod's namespace (R2.2).
//
// Select parses every selector that is more than plain matchLabels on every
// call; admission, which selects from the same presets for every pod, uses
// Cache.Select instead.
func Select(pod *corev1.Pod, presets []*v1alpha1.PodPreset) ([]*v1alpha1.PodPreset, error) {
	return selectPresets(pod, presets, nil)
}

// selectPresets is Select with the selectors taken from entries (aligned with
// presets; nil or with nil elements for presets not cached).
func selectPresets(pod *corev1.Pod, presets []*v1alpha1.PodPreset, entries []*entry) ([]*v1alpha1.PodPreset, error) {
	var podLabels labels.Set
	if pod != nil {
		podLabels = labels.Set(pod.Labels)
	}
	var (
		// Room for the common case of a few matches, in one allocation.
		matched = make([]*v1alpha1.PodPreset, 0, min(len(presets), 16))
		errs    []error
	)
	for i, p := range presets {
		if p == nil {
			continue
		}
		ok, err := selects(p, entryAt(entries, i), podLabels)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			matched = append(matched, p)
		}
	}
	slices.SortStableFunc(matched, func(a, b *v1alpha1.PodPreset) int {
		return strings.Compare(a.Name, b.Name)
	})
	return matched, errors.Join(errs...)
}

// entryAt returns entries[i], or nil.
func entryAt(entries []*entry, i int) *entry {
	if entries == nil {
		return nil
	}
	return entries[i]
}

// selects reports whether the preset's selector matches the labels, with
// its cached selector (e), or directly for a plain matchLabels selector,
// or else by parsing it.
func selects(p *v1alpha1.PodPreset, e *entry, podLabels labels.Set) (bool, error) {
	if e != nil {
		if e.selectorErr != nil {
			return false, e.selectorErr
		}
		return e.selector.Matches(podLabels), nil
	}
	if matches, ok := matchLabelsOnly(&p.Spec.Selector, podLabels); ok {
		return matches, nil
	}
	selector, err := parseSelector(p)
	if err != nil {
		return false, err
	}
	return selector.Matches(podLabels), nil
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
	// Pod is always a new object. It equals the input when Conflicts is
	// non-empty or when no preset was given. It shares no memory with the
	// pod or the presets given to Apply (nor with a Cache): changing it in
	// place, at any depth, leaves them as they were. Lists that received
	// items may be windows of one array per kind of list, each capped at
	// its own length (see the package documentation).
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
//
// Apply defaults (copies) every preset that does not provably carry its
// defaults on every call; admission uses Cache.Apply, which does it once per
// preset version.
func Apply(pod *corev1.Pod, presets []*v1alpha1.PodPreset) Result {
	if pod == nil {
		return Result{}
	}
	return apply(pod, prepare(presets))
}

// apply merges presets that are already defaulted into a copy of pod.
func apply(pod *corev1.Pod, presets []prepared) Result {
	out := pod.DeepCopy()
	n := countItems(presets)
	if n == (itemCounts{}) {
		// Nothing to inject: only the annotations change.
		return annotate(out, presets)
	}

	pm := newPodMerger(out, presets, n)
	var cs conflictSet
	for _, p := range presets {
		pm.add(p.preset, &cs)
	}
	if len(cs.list) > 0 {
		return Result{Pod: pod.DeepCopy(), Conflicts: cs.list}
	}
	pm.store()
	return annotate(out, presets)
}

// annotate records every preset in out's annotations (R3.7).
func annotate(out *corev1.Pod, presets []prepared) Result {
	if len(presets) == 0 {
		return Result{Pod: out}
	}
	if out.Annotations == nil {
		out.Annotations = make(map[string]string, len(presets))
	}
	applied := make([]string, len(presets))
	for i, p := range presets {
		out.Annotations[p.annotation] = p.preset.ResourceVersion
		applied[i] = p.preset.Name
	}
	return Result{Pod: out, Applied: applied}
}

// itemCounts is how many items the presets hold in each list: an upper bound
// of what one list can receive, so that each grows at most once.
type itemCounts struct {
	env, envFrom, volumeMounts, volumes int
}

func countItems(presets []prepared) itemCounts {
	var n itemCounts
	for _, p := range presets {
		n.env += len(p.preset.Spec.Env)
		n.envFrom += len(p.preset.Spec.EnvFrom)
		n.volumeMounts += len(p.preset.Spec.VolumeMounts)
		n.volumes += len(p.preset.Spec.Volumes)
	}
	return n
}

// conflictSet collects conflicts in order, each once.
type conflictSet struct {
	list []Conflict
	seen map[Conflict]bool
}

func (s *conflictSet) report(preset, container, field string, keys []string) {
	for _, k := range keys {
		c := Conflict{Preset: preset, Container: container, Field: field, Key: k}
		if s.seen[c] {
			continue
		}
		if s.seen == nil {
			s.seen = map[Conflict]bool{}
		}
		s.seen[c] = true
		s.list = append(s.list, c)
	}
}
