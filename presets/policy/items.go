package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// itemList is one of the four lists a preset injects: the pod's volumes and
// each container's env, envFrom and volumeMounts.
type itemList struct {
	field string
	items func(*v1alpha1.PodPreset) []any
	// keys name an item (R3.5): two items with one key equal and different
	// contents conflict. The first also says whether a list holds an item:
	// when nothing conflicts, an item with its key is identical.
	keys []itemKey
}

// itemKey is one key of an item: its name in variable names, the CEL
// expression of an item v's key, and the same key of a Go item.
type itemKey struct {
	name  string
	expr  func(v string) string
	value func(item any) string
}

var byName = itemKey{"Name", func(v string) string { return v + ".name" }, func(item any) string {
	switch item := item.(type) {
	case corev1.Volume:
		return item.Name
	case corev1.EnvVar:
		return item.Name
	case corev1.VolumeMount:
		return item.Name
	}
	panic(fmt.Sprintf("no name for %T", item))
}}

// bySource names an envFrom item by its prefix and source (R3.5), joined by
// a character that no name or prefix holds.
var bySource = itemKey{"Source", func(v string) string {
	return fmt.Sprintf(`(has(%[1]s.prefix) ? %[1]s.prefix : "") + "\x00" + `+
		`(has(%[1]s.configMapRef) && has(%[1]s.configMapRef.name) ? %[1]s.configMapRef.name : "") + "\x00" + `+
		`(has(%[1]s.secretRef) && has(%[1]s.secretRef.name) ? %[1]s.secretRef.name : "")`, v)
}, func(item any) string {
	e := item.(corev1.EnvFromSource)
	var cm, secret string
	if e.ConfigMapRef != nil {
		cm = e.ConfigMapRef.Name
	}
	if e.SecretRef != nil {
		secret = e.SecretRef.Name
	}
	return e.Prefix + "\x00" + cm + "\x00" + secret
}}

var byMountPath = itemKey{"MountPath", func(v string) string { return v + ".mountPath" }, func(item any) string {
	return item.(corev1.VolumeMount).MountPath
}}

var lists = []itemList{
	{"volumes", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.Volumes) }, []itemKey{byName}},
	{"env", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.Env) }, []itemKey{byName}},
	{"envFrom", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.EnvFrom) }, []itemKey{bySource}},
	{"volumeMounts", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.VolumeMounts) }, []itemKey{byName, byMountPath}},
}

func anys[T any](items []T) []any {
	out := make([]any, len(items))
	for i := range items {
		out[i] = items[i]
	}
	return out
}

// entry is an item a preset adds, under a condition.
type entry struct {
	preset  int    // the index of the preset that adds it
	cond    string // a CEL condition on the p<i> variables
	index   int    // cond's index in compiler.conds
	literal string // the item, a CEL constant
	item    any
}

// entries are the items of one kind that the presets add, in preset order,
// each preset's in its own order (R3.3), each under the condition that adds
// it: its preset matches, and no earlier preset that adds an identical item
// does (R3.4 between presets). An item identical to an earlier one of its
// own preset, or one that an earlier preset of the same selector adds, is
// never added. The items are dyn, so that they compare with the pod's
// typed items.
func (c *compiler) entries(l itemList) ([]entry, error) {
	var out []entry
	for i, p := range c.presets {
		own := l.items(p)
		for j, item := range own {
			same := func(earlier any) bool { return equality.Semantic.DeepEqual(earlier, item) }
			if slices.ContainsFunc(own[:j], same) {
				continue
			}
			negs := map[int]bool{}
			for k := range i {
				if slices.ContainsFunc(l.items(c.presets[k]), same) {
					negs[c.selects[k]] = true
				}
			}
			if negs[c.selects[i]] {
				continue
			}
			cond := c.matches(i)
			for _, k := range slices.Sorted(maps.Keys(negs)) {
				cond += fmt.Sprintf(" && !variables.p%d", k)
			}
			lit, err := literal(item)
			if err != nil {
				return nil, fmt.Errorf("pod preset %s/%s: %w", p.Namespace, p.Name, err)
			}
			index := slices.Index(c.conds, cond)
			if index < 0 {
				index = len(c.conds)
				c.conds = append(c.conds, cond)
			}
			out = append(out, entry{preset: i, cond: cond, index: index, literal: "dyn(" + lit + ")", item: item})
		}
	}
	return out, nil
}

// runs are the terms of the list of entries: one constant list per run of
// entries under one condition, "(cond ? [items] : [])", a run cut where it
// would pass chunkChars.
func runs(es []entry) []string {
	var terms []string
	for i := 0; i < len(es); {
		j, size := i, 0
		for j < len(es) && es[j].cond == es[i].cond && (j == i || size+len(es[j].literal) <= chunkChars) {
			size += len(es[j].literal) + 2
			j++
		}
		lits := make([]string, 0, j-i)
		for _, e := range es[i:j] {
			lits = append(lits, e.literal)
		}
		terms = append(terms, fmt.Sprintf("(%s ? [%s] : [])", es[i].cond, strings.Join(lits, ", ")))
		i = j
	}
	return terms
}

// keyMaps adds the map variable name (name0, name1, … when it is too large
// for one expression): every entry by its key, as [index of its condition
// in variables.conds, item]. It is a constant: looking a pod's item up in it
// costs one step, and only the entries whose condition holds count.
func (c *compiler) keyMaps(name string, key itemKey, es []entry) {
	byKey := map[string][]string{}
	for _, e := range es {
		k := key.value(e.item)
		byKey[k] = append(byKey[k], fmt.Sprintf("[dyn(%d), %s]", e.index, e.literal))
	}
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		pairs = append(pairs, fmt.Sprintf("%s: [%s]", quote(k), strings.Join(byKey[k], ", ")))
	}
	chunks := chunk(pairs)
	if c.keyed == nil {
		c.keyed = map[string][]string{}
	}
	for i, ch := range chunks {
		n := name
		if len(chunks) > 1 {
			n = fmt.Sprintf("%s%d", name, i)
		}
		c.add(n, "{"+strings.Join(ch, ",\n")+"}")
		c.keyed[name] = append(c.keyed[name], "variables."+n)
	}
}
