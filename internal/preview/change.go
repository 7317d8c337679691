package preview

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/internal/words"
	"presetsim.dev/presetsim/presets/conflict"
	"presetsim.dev/presetsim/presets/merge"
)

// Changes is what a change of the manifests (presets, pods, workloads) does
// to the admitted pods: the results of a base and of a head compared pod by
// pod, each pod known by its namespace and source.
type Changes struct {
	// Base and Head name the two sides as the user gave them.
	Base, Head string `json:"-"`
	// Pods counts the pods of either side.
	Pods int `json:"pods"`
	// Changed holds the pods admitted differently, in the head's order,
	// then those only in the base.
	Changed []PodChange `json:"changed"`
}

// PodChange is how one pod (or workload's pod) is admitted differently.
type PodChange struct {
	Namespace string `json:"namespace"`
	Source    string `json:"source"`
	// Side is "both", "head" (a pod new in the head) or "base" (a pod the
	// head no longer has).
	Side string `json:"side"`
	// Items are the injected items added, removed or changed.
	Items []ItemChange `json:"items"`
	// AppliedNow and AppliedNoLonger are the presets the head applies and
	// the base did not, and the reverse.
	AppliedNow      []string `json:"appliedNow"`
	AppliedNoLonger []string `json:"appliedNoLonger"`
	// NewConflicts are the conflicts the head has and the base had not
	// (R4.1): each keeps the pod's presets from applying (R4.2).
	NewConflicts []conflict.Item `json:"newConflicts"`
	// ResolvedConflicts are the base's conflicts the head no longer has.
	ResolvedConflicts []conflict.Item `json:"resolvedConflicts"`
}

// ItemChange is one injected item that differs.
type ItemChange struct {
	// Change is "added", "removed" or "changed".
	Change string `json:"change"`
	// Where is "pod" (volumes), "container NAME" or "init container NAME".
	Where string `json:"where"`
	// Field is the list: env, envFrom, volumes or volumeMounts.
	Field string `json:"field"`
	// Key is the item's key in its list (a name, a mountPath, envFrom's
	// tuple), as conflicts show it.
	Key string `json:"key"`
	// Before and After are the item's content on each side ("" when
	// absent): an env var's value, otherwise compact JSON.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// Sides of a PodChange.
const (
	SideBoth = "both"
	SideHead = "head"
	SideBase = "base"
)

// MadeConflict reports whether the head has a conflict the base had not:
// the change made a pod lose its presets.
func (c Changes) MadeConflict() bool {
	return slices.ContainsFunc(c.Changed, func(p PodChange) bool { return len(p.NewConflicts) > 0 })
}

// Compare compares the results of admitting the base's manifests with those
// of the head's.
func Compare(base, head []Result) Changes {
	key := func(r Result) string { return r.Output.Namespace + "\x00" + r.Source }
	byKey := map[string]Result{}
	for _, r := range base {
		byKey[key(r)] = r
	}
	seen := map[string]bool{}
	var c Changes
	for _, h := range head {
		k := key(h)
		seen[k] = true
		b, ok := byKey[k]
		side := SideBoth
		if !ok {
			side = SideHead
		}
		if pc := comparePod(b, h, side); pc.changed() {
			c.Changed = append(c.Changed, pc)
		}
	}
	c.Pods = len(head)
	for _, b := range base {
		if !seen[key(b)] {
			c.Changed = append(c.Changed, comparePod(b, Result{}, SideBase))
			c.Pods++
		}
	}
	return c
}

// changed reports whether the pod is admitted differently, or is on one
// side only.
func (p PodChange) changed() bool {
	return p.Side != SideBoth || len(p.Items)+len(p.AppliedNow)+len(p.AppliedNoLonger)+len(p.NewConflicts)+len(p.ResolvedConflicts) > 0
}

// comparePod compares one pod's results; a side the pod is not on is the
// zero Result.
func comparePod(base, head Result, side string) PodChange {
	either := head
	if side == SideBase {
		either = base
	}
	pc := PodChange{Namespace: either.Output.Namespace, Source: either.Source, Side: side}
	before, after := injected(base), injected(head)
	for _, k := range itemOrder(after, before) {
		b, inBase := before.items[k]
		a, inHead := after.items[k]
		ic := ItemChange{Where: k.where, Field: k.field, Key: k.key, Before: b, After: a}
		switch {
		case !inBase:
			ic.Change = "added"
		case !inHead:
			ic.Change = "removed"
		case a != b:
			ic.Change = "changed"
		default:
			continue
		}
		pc.Items = append(pc.Items, ic)
	}
	pc.AppliedNow = without(head.Applied, base.Applied)
	pc.AppliedNoLonger = without(base.Applied, head.Applied)
	pc.NewConflicts = conflictsWithout(head.Conflicts, base.Conflicts)
	pc.ResolvedConflicts = conflictsWithout(base.Conflicts, head.Conflicts)
	return pc
}

// itemKey names an injected item: where it is, its list and its key there.
type itemKey struct{ where, field, key string }

// items are the items admission added to a pod, by key, in the order met.
type items struct {
	items map[itemKey]string
	order []itemKey
}

func (s *items) add(k itemKey, content string) {
	if _, ok := s.items[k]; !ok {
		s.order = append(s.order, k)
	}
	s.items[k] = content
}

// itemOrder is the head's items in order, then the base's the head has not.
func itemOrder(head, base items) []itemKey {
	order := slices.Clone(head.order)
	for _, k := range base.order {
		if _, ok := head.items[k]; !ok {
			order = append(order, k)
		}
	}
	return order
}

// injected is what admission added to the pod: the items of its output that
// its input had not, by key. A result with no pod has none.
func injected(r Result) items {
	s := items{items: map[itemKey]string{}}
	if r.Output == nil {
		return s
	}
	in := r.Input.Spec
	containers := func(kind string, out, in []corev1.Container) {
		for _, c := range out {
			where := kind + " " + c.Name
			var was corev1.Container
			if i := slices.IndexFunc(in, func(x corev1.Container) bool { return x.Name == c.Name }); i >= 0 {
				was = in[i]
			}
			for _, e := range c.Env {
				if !slices.ContainsFunc(was.Env, func(x corev1.EnvVar) bool { return same(x, e) }) {
					s.add(itemKey{where, conflict.FieldEnv, e.Name}, envContent(e))
				}
			}
			for _, e := range c.EnvFrom {
				if !slices.ContainsFunc(was.EnvFrom, func(x corev1.EnvFromSource) bool { return same(x, e) }) {
					s.add(itemKey{where, conflict.FieldEnvFrom, merge.EnvFromLabel(&e)}, conflict.Content(e))
				}
			}
			for _, m := range c.VolumeMounts {
				if !slices.ContainsFunc(was.VolumeMounts, func(x corev1.VolumeMount) bool { return same(x, m) }) {
					s.add(itemKey{where, conflict.FieldVolumeMounts, "mountPath " + m.MountPath}, conflict.Content(m))
				}
			}
		}
	}
	containers("init container", r.Output.Spec.InitContainers, in.InitContainers)
	containers("container", r.Output.Spec.Containers, in.Containers)
	for _, v := range r.Output.Spec.Volumes {
		if !slices.ContainsFunc(in.Volumes, func(x corev1.Volume) bool { return same(x, v) }) {
			s.add(itemKey{"pod", conflict.FieldVolumes, v.Name}, conflict.Content(v.VolumeSource))
		}
	}
	return s
}

// envContent is an env var's value, or its valueFrom as compact JSON.
func envContent(e corev1.EnvVar) string {
	if e.ValueFrom != nil {
		return conflict.Content(e.ValueFrom)
	}
	return e.Value
}

// same is whether two items have the same content, as the merge compares
// them (R4.1).
func same[T any](a, b T) bool { return equality.Semantic.DeepEqual(a, b) }

// without is a's names that b has not, sorted.
func without(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// conflictsWithout is a's conflicts that b has not, by preset and what they
// are.
func conflictsWithout(a, b []conflict.Item) []conflict.Item {
	var out []conflict.Item
	for _, c := range a {
		if !slices.ContainsFunc(b, func(x conflict.Item) bool { return x.Preset == c.Preset && x.String() == c.String() }) {
			out = append(out, c)
		}
	}
	return out
}

// Summary is the change in one sentence, e.g. "2 of 5 pods are admitted
// differently; 1 now has a conflict".
func (c Changes) Summary() string {
	if len(c.Changed) == 0 {
		return fmt.Sprintf("no pod is admitted differently (%s)", words.Count(c.Pods, "pod"))
	}
	s := fmt.Sprintf("%d of %s %s admitted differently", len(c.Changed), words.Count(c.Pods, "pod"), words.Agree(len(c.Changed), "is", "are"))
	conflicted := 0
	for _, p := range c.Changed {
		if len(p.NewConflicts) > 0 {
			conflicted++
		}
	}
	if conflicted > 0 {
		s += fmt.Sprintf("; %d now %s a conflict", conflicted, words.Agree(conflicted, "has", "have"))
	}
	return s
}

// Title is how a Markdown heading names the pod: "Deployment web (pod
// template) in namespace shop".
func (p PodChange) Title() string {
	return fmt.Sprintf("%s in namespace %s", p.Source, p.Namespace)
}

// String describes an item: "env LOG_LEVEL in container app".
func (i ItemChange) String() string {
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(i.Field, "s"))
	b.WriteString(" ")
	b.WriteString(i.Key)
	if i.Where != "pod" {
		b.WriteString(" in ")
		b.WriteString(i.Where)
	}
	return b.String()
}
