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

	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/conflict"
)

// AnnotationPrefix is the prefix of every annotation this package reads or writes.
const AnnotationPrefix = "podpreset.admission.kubernetes.io/"

// ExcludeAnnotation, set to exactly "true" on a pod, opts the pod out of all
// presets (R2.4). The check belongs to the admission plug-in, not to Apply.
const ExcludeAnnotation = AnnotationPrefix + "exclude"

// AnnotationKey returns the pod annotation that records that the named preset
// was applied (R3.7): AnnotationPrefix + "podpreset-" + presetName.
func AnnotationKey(presetName string) string {
	return AnnotationPrefix + "podpreset-" + presetName
}

// Select returns the presets whose selector matches the pod's labels (R2.3),
// sorted by name in byte order (R3.6). The empty selector matches every pod.
//
// Presets whose selector cannot be converted (metav1.LabelSelectorAsSelector
// fails) are skipped and reported in the returned error, one joined error per
// preset; the presets that do match are returned all the same. Nil presets are
// ignored. Select does not look at namespaces: the caller passes the presets of
// the pod's namespace (R2.2).
func Select(pod *corev1.Pod, presets []*v1alpha1.PodPreset) ([]*v1alpha1.PodPreset, error) {
	var podLabels labels.Set
	if pod != nil {
		podLabels = pod.Labels
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

// Result is the outcome of Apply.
type Result struct {
	// Pod is always a new object, sharing no memory with the arguments of
	// Apply. It equals the input when Conflicts is non-empty or when no
	// preset was given.
	Pod *corev1.Pod
	// Applied holds the names of the presets applied, in order; it is empty
	// when there is any conflict.
	Applied []string
	// Conflicts lists every conflict found, without duplicates, ordered by
	// preset, then pod volumes, then init containers and containers in pod
	// order, then env, envFrom, volumeMounts, then item order.
	Conflicts []conflict.Item
}

// Variant is a departure from the specification that an implementation
// declares (a profile's behaviour, harness.md "Verdicts come from a
// model"). The zero Variant is the specification.
type Variant struct {
	// InitContainersUntouched leaves init containers alone (R3.2 varied:
	// Kubernetes before 1.14 and some replacements did).
	InitContainersUntouched bool
	// EnvFrom is how envFrom entries are compared (R3.4, R3.5, R4.1 varied).
	EnvFrom EnvFromMode

	// The keys below are no choice a profile can declare: they are faults,
	// which the oracle's hypotheses (internal/oracle) vary the merge with
	// to name the rule an implementation breaks.

	// EnvNamesFolded keys env vars by their name without regard to case
	// (R3.5 broken).
	EnvNamesFolded bool
	// EnvFromPrefixIgnored keys envFrom entries by their source alone
	// (R3.5 broken).
	EnvFromPrefixIgnored bool
	// MountPathsUnkeyed keys volume mounts by their name alone, so that two
	// mounts at one path do not conflict (R4.1 broken).
	MountPathsUnkeyed bool
	// PresetsUndefaulted compares and injects a preset's items as stored,
	// without the defaults the API server gave the pod's (R3.4 broken: an
	// item equal to the pod's once defaulted is a conflict, as an
	// implementation that compares with reflect.DeepEqual finds it).
	PresetsUndefaulted bool
	// OverwriteConflicts, with the conflicts applied (Merge), puts a
	// conflicting item in place of the one it conflicts with (R4.4
	// broken: data lost).
	OverwriteConflicts bool
}

// EnvFromMode is how envFrom entries are compared with a container's.
type EnvFromMode int

const (
	// EnvFromCompared, the specification's: by key (R3.5), an identical
	// entry skipped (R3.4), a different one with the same key a conflict
	// (R4.1).
	EnvFromCompared EnvFromMode = iota
	// EnvFromDeduplicated: an identical entry is skipped, any other is
	// appended; entries never conflict.
	EnvFromDeduplicated
	// EnvFromAppended: every entry is appended, duplicates included, as
	// Kubernetes 1.19 did.
	EnvFromAppended
	// EnvFromAppendedUnlessSubmitted: every entry is appended, duplicates
	// among presets included, except one identical to an entry the
	// container was submitted with. Kubeflow's PodDefault webhook appends
	// every entry, but its JSON patch library diffs lists of different
	// lengths as sets, so an appended copy of an entry the pod already had
	// never reaches the API server.
	EnvFromAppendedUnlessSubmitted
)

// Apply merges the presets, in the order given, into a copy of pod (callers
// use Select first to pick and order them). It never mutates its arguments;
// nil presets are ignored and a nil pod yields a Result with a nil Pod.
//
// Each preset's items are first given the defaults the API server gives a
// pod's items (defaults.Preset), so that they compare with the pod's own
// defaulted items as the user wrote them, and are injected in that form.
func Apply(pod *corev1.Pod, presets []*v1alpha1.PodPreset) Result {
	return ApplyVariant(pod, presets, Variant{})
}

// ApplyVariant is Apply with a declared variant of the specification; with
// the zero Variant it is Apply.
func ApplyVariant(pod *corev1.Pod, presets []*v1alpha1.PodPreset, v Variant) Result {
	if pod == nil {
		return Result{}
	}
	out, conflicts := Merge(pod, presets, v)
	// R4.2: one conflict anywhere and nothing is applied; Merge went
	// through every preset so that the report is complete (R4.3).
	if len(conflicts) > 0 {
		return Result{Pod: pod.DeepCopy(), Conflicts: conflicts}
	}
	result := Result{Pod: out}
	for _, p := range presets {
		if p == nil {
			continue
		}
		// R3.7: the annotation records the preset's version, even when the
		// preset added nothing new.
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[AnnotationKey(p.Name)] = p.ResourceVersion
		result.Applied = append(result.Applied, p.Name)
	}
	return result
}

// Merge adds the presets' items, in the order given, to a copy of pod and
// returns it with every conflict found: an item that conflicts is not
// added, the others are, and no annotation is written. Apply is Merge
// followed by R4.2 and R3.7; an implementation that applies presets in
// spite of conflicts (a profile's "conflicts: apply") makes the pod Merge
// returns. A nil pod yields a nil pod.
func Merge(pod *corev1.Pod, presets []*v1alpha1.PodPreset, v Variant) (*corev1.Pod, []conflict.Item) {
	if pod == nil {
		return nil, nil
	}
	out := pod.DeepCopy()
	// R3.2: every init container and every container, in pod order;
	// ephemeral containers are not touched.
	var containers []*corev1.Container
	for i := range out.Spec.InitContainers {
		if v.InitContainersUntouched {
			break
		}
		containers = append(containers, &out.Spec.InitContainers[i])
	}
	for i := range out.Spec.Containers {
		containers = append(containers, &out.Spec.Containers[i])
	}

	// The entries each container was submitted with, by container, for
	// EnvFromAppendedUnlessSubmitted only.
	var submitted map[*corev1.Container][]corev1.EnvFromSource
	if v.EnvFrom == EnvFromAppendedUnlessSubmitted {
		submitted = map[*corev1.Container][]corev1.EnvFromSource{}
		for _, c := range containers {
			submitted[c] = slices.Clone(c.EnvFrom)
		}
	}
	// Each list the presets inject into, with its items found by key.
	volumes := keyedList(&out.Spec.Volumes, volumeKeys)
	type containerLists struct {
		env          *keyed[corev1.EnvVar]
		envFrom      *keyed[corev1.EnvFromSource]
		volumeMounts *keyed[corev1.VolumeMount]
	}
	lists := make([]containerLists, len(containers))
	for i, c := range containers {
		lists[i] = containerLists{keyedList(&c.Env, v.envKeys()), keyedList(&c.EnvFrom, v.envFromKeys()), keyedList(&c.VolumeMounts, v.volumeMountKeys())}
	}
	var conflicts conflictList
	for _, p := range presets {
		if p == nil {
			continue
		}
		// A copy of its own: the pod's items then share no memory with the
		// preset. Each container gets copies of the items, so that no two
		// containers share memory either.
		if v.PresetsUndefaulted {
			p = p.DeepCopy()
		} else {
			p = defaults.Preset(p)
		}
		// R3.1: volumes go to the pod spec.
		for _, vol := range p.Spec.Volumes {
			conflicts.add(p.Name, "", conflict.FieldVolumes, volumes.inject(vol, v.OverwriteConflicts))
		}
		for i, c := range containers {
			for _, e := range p.Spec.Env {
				conflicts.add(p.Name, c.Name, conflict.FieldEnv, lists[i].env.inject(*e.DeepCopy(), v.OverwriteConflicts))
			}
			for _, e := range p.Spec.EnvFrom {
				switch v.EnvFrom {
				case EnvFromDeduplicated:
					appendNew(&c.EnvFrom, *e.DeepCopy())
				case EnvFromAppended:
					c.EnvFrom = append(c.EnvFrom, *e.DeepCopy())
				case EnvFromAppendedUnlessSubmitted:
					if !slices.ContainsFunc(submitted[c], func(x corev1.EnvFromSource) bool { return equality.Semantic.DeepEqual(x, e) }) {
						c.EnvFrom = append(c.EnvFrom, *e.DeepCopy())
					}
				default:
					conflicts.add(p.Name, c.Name, conflict.FieldEnvFrom, lists[i].envFrom.inject(*e.DeepCopy(), v.OverwriteConflicts))
				}
			}
			for _, m := range p.Spec.VolumeMounts {
				conflicts.add(p.Name, c.Name, conflict.FieldVolumeMounts, lists[i].volumeMounts.inject(*m.DeepCopy(), v.OverwriteConflicts))
			}
		}
	}
	return out, conflicts
}

// inject appends item to the list, after the items already there (R3.3),
// unless it is identical to an item that shares one of its keys (R3.4), in
// which case it is skipped. An item that shares a key with an item and is
// identical to none of them is a conflict (R4.1): it is not added, so the
// list is never rewritten (R4.4), and the shared keys are returned, in the
// order of keys, each with the two items. A nil list that receives nothing
// stays nil.
//
// "Already there" includes what earlier presets and earlier items of the
// same preset added, as Kubernetes 1.19 compared against its lists while
// appending to them.
//
// With overwrite (a fault, Variant.OverwriteConflicts), a conflicting item
// replaces the first item it shares a key with instead.
func (x *keyed[T]) inject(item T, overwrite bool) (conflicts []sharedKey) {
	first := -1
	for k, key := range x.keys {
		shared := -1
		for _, i := range x.at[k][key.of(&item)] {
			if key.identical(&(*x.list)[i], &item) {
				return nil // R3.4: already there
			}
			if shared < 0 {
				shared = i
			}
		}
		if shared >= 0 {
			conflicts = append(conflicts, sharedKey{label: key.label(&item), injected: conflict.Content(item), existing: conflict.Content((*x.list)[shared])})
			if first < 0 {
				first = shared
			}
		}
	}
	if len(conflicts) > 0 {
		if overwrite {
			x.forget(first)
			(*x.list)[first] = item
			x.remember(first)
		}
		return conflicts
	}
	*x.list = append(*x.list, item)
	x.remember(len(*x.list) - 1)
	return nil
}

// keyed is a list with its items found by each of its keys (R3.5): the
// positions of the items that share a key, in list order. It makes
// injecting n items into a list of m cost n+m, not n×m.
type keyed[T any] struct {
	list *[]T
	keys []key[T]
	at   []map[[3]string][]int
}

// keyedList indexes *list by keys; the list changes only through inject
// from then on.
func keyedList[T any](list *[]T, keys []key[T]) *keyed[T] {
	x := &keyed[T]{list: list, keys: keys, at: make([]map[[3]string][]int, len(keys))}
	for k := range keys {
		x.at[k] = map[[3]string][]int{}
	}
	for i := range *list {
		x.remember(i)
	}
	return x
}

// remember records the item at position i under each of its keys, keeping
// every key's positions in list order.
func (x *keyed[T]) remember(i int) {
	for k, key := range x.keys {
		v := key.of(&(*x.list)[i])
		at := x.at[k][v]
		j, _ := slices.BinarySearch(at, i)
		x.at[k][v] = slices.Insert(at, j, i)
	}
}

// forget removes the item at position i from its keys' positions.
func (x *keyed[T]) forget(i int) {
	for k, key := range x.keys {
		v := key.of(&(*x.list)[i])
		x.at[k][v] = slices.DeleteFunc(x.at[k][v], func(j int) bool { return j == i })
	}
}

// appendNew appends item to *list unless an identical item is there
// (EnvFromDeduplicated).
func appendNew[T any](list *[]T, item T) {
	for i := range *list {
		if equality.Semantic.DeepEqual((*list)[i], item) {
			return
		}
	}
	*list = append(*list, item)
}

// sharedKey is a key an injected item shares with a different item already
// in the list: its label and both items.
type sharedKey struct{ label, injected, existing string }
