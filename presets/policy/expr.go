package policy

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// The API server's limits shape the generated CEL (docs/policy.md):
//   - an expression may hold at most 100,000 code points, so what grows
//     with the number of presets (the items, the annotations, the list of
//     matches) is split into variables of at most chunkTerms terms and
//     chunkChars characters, joined by one more variable;
//   - cel-go's runtime cost tracker keeps a stack of the values an
//     evaluation produced and, for each ternary and each variable it reads,
//     searches it from the top; an expression of n terms costs n² there,
//     which chunkTerms bounds (each variable is evaluated on a stack of its
//     own);
//   - the cost budget (1,000,000 per expression, 10,000,000 per pod) counts
//     every iteration of a comprehension: the pod's items are looked up by
//     key in maps (variables.<list>By<Key>), never compared pairwise with
//     the presets' (an API server evaluates the policy a second time on its
//     own output, when the pod holds every item of every matching preset).
const (
	chunkTerms = 64
	chunkChars = 20000
)

// compiler writes the CEL of one namespace's presets, sorted and defaulted.
type compiler struct {
	presets []*v1alpha1.PodPreset
	vars    []admissionregistrationv1.Variable
	// selects[i] is the preset whose selector preset i's is: its own
	// index, or the first preset's with an identical selector.
	selects []int
}

// matches is the variable that says whether preset i selects the pod:
// p<j>, j the first preset with the same selector (presets often share
// one, and each variable is an evaluation of its own).
func (c *compiler) matches(i int) string { return fmt.Sprintf("variables.p%d", c.selects[i]) }

// itemList is one of the four lists a preset injects: the pod's volumes and
// each container's env, envFrom and volumeMounts.
type itemList struct {
	field string
	items func(*v1alpha1.PodPreset) []any
	// keys name an item (R3.5): two items with one key equal and different
	// contents conflict. Each is a name for the map variable and a CEL
	// expression of the item v. The first also says whether a list holds
	// an item: when nothing conflicts, an item with its key is identical.
	keys []itemKey
}

type itemKey struct {
	name string
	expr func(v string) string
}

var byName = itemKey{"Name", func(v string) string { return v + ".name" }}

var lists = []itemList{
	{"volumes", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.Volumes) }, []itemKey{byName}},
	{"env", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.Env) }, []itemKey{byName}},
	// R3.5: an envFrom item is named by its prefix and source, joined by a
	// character no name or prefix holds.
	{"envFrom", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.EnvFrom) }, []itemKey{{"Source", func(v string) string {
		return fmt.Sprintf(`(has(%[1]s.prefix) ? %[1]s.prefix : "") + "\x00" + `+
			`(has(%[1]s.configMapRef) && has(%[1]s.configMapRef.name) ? %[1]s.configMapRef.name : "") + "\x00" + `+
			`(has(%[1]s.secretRef) && has(%[1]s.secretRef.name) ? %[1]s.secretRef.name : "")`, v)
	}}}},
	{"volumeMounts", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.VolumeMounts) },
		[]itemKey{byName, {"MountPath", func(v string) string { return v + ".mountPath" }}}},
}

func anys[T any](items []T) []any {
	out := make([]any, len(items))
	for i := range items {
		out[i] = items[i]
	}
	return out
}

// variables are, in order: the pod's labels; p<i>, whether preset i
// selects the pod; static, whether matching presets conflict among
// themselves; per list, the items the matching presets add, in order, and
// those items by key; annotations; conflict; matched.
func (c *compiler) variables() ([]admissionregistrationv1.Variable, error) {
	c.add("labels", "has(object.metadata.labels) ? object.metadata.labels : {}")
	first := map[string]int{}
	c.selects = make([]int, len(c.presets))
	for i, p := range c.presets {
		sel, err := selector(p.Spec.Selector, "variables.labels")
		if err != nil {
			return nil, fmt.Errorf("pod preset %s/%s has an invalid selector: %w", p.Namespace, p.Name, err)
		}
		j, seen := first[sel]
		if !seen {
			j, first[sel] = i, i
			c.add(fmt.Sprintf("p%d", i), sel)
		}
		c.selects[i] = j
	}
	c.joined("static", c.static(), anyOf)
	for _, l := range lists {
		terms, err := c.items(l.items)
		if err != nil {
			return nil, err
		}
		c.joined(l.field, terms, func(terms []string, sep string) string { return "dyn(" + concat(terms, sep) + ")" })
		// Two matching items share a key only when they conflict, which
		// static says: the map is built only when they do not.
		for _, k := range l.keys {
			c.add(l.field+"By"+k.name, fmt.Sprintf("variables.static ? {} : variables.%s.transformMapEntry(i, b, {%s: b})", l.field, k.expr("b")))
		}
	}
	c.joined("annotations", c.annotations(), concat)
	c.add("conflict", c.conflict())
	var matched []string
	for i := range c.presets {
		if c.selects[i] == i {
			matched = append(matched, c.matches(i))
		}
	}
	c.joined("matched", matched, anyOf)
	return c.vars, nil
}

func (c *compiler) add(name, expr string) {
	c.vars = append(c.vars, admissionregistrationv1.Variable{Name: name, Expression: expr})
}

// joined adds the variable name, join(terms): as one expression when the
// terms are few and short, or as variables name0, name1, … of a chunk each
// and name joining them. With no terms, join must give the empty value.
func (c *compiler) joined(name string, terms []string, join func(terms []string, sep string) string) {
	var chunks [][]string
	size := 0
	for _, t := range terms {
		if len(chunks) == 0 || len(chunks[len(chunks)-1]) == chunkTerms || size+len(t) > chunkChars {
			chunks = append(chunks, nil)
			size = 0
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], t)
		size += len(t)
	}
	if len(chunks) <= 1 {
		c.add(name, join(terms, "\n"))
		return
	}
	parts := make([]string, len(chunks))
	for i, chunk := range chunks {
		parts[i] = fmt.Sprintf("variables.%s%d", name, i)
		c.add(fmt.Sprintf("%s%d", name, i), join(chunk, "\n"))
	}
	c.add(name, join(parts, " "))
}

// static are the terms of "matching presets conflict among themselves"
// (R4.1): a preset that conflicts with itself, or two that conflict with
// each other, decided here by the reference merge engine on a pod with one
// empty container.
func (c *compiler) static() []string {
	var terms []string
	self := make([]bool, len(c.presets))
	for i, p := range c.presets {
		if self[i] = len(merge.Apply(probePod(), []*v1alpha1.PodPreset{p}).Conflicts) > 0; self[i] {
			terms = append(terms, c.matches(i))
		}
	}
	for i, p := range c.presets {
		for j := i + 1; j < len(c.presets); j++ {
			if !self[i] && !self[j] && len(merge.Apply(probePod(), []*v1alpha1.PodPreset{p, c.presets[j]}).Conflicts) > 0 {
				terms = append(terms, fmt.Sprintf("(%s && %s)", c.matches(i), c.matches(j)))
			}
		}
	}
	return terms
}

// probePod is a pod with one container and nothing else: merging presets
// into it shows the conflicts they have among themselves.
func probePod() *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "probe"}}}}
}

// items are the terms of the list of one kind of item that the matching
// presets add, in preset order, each preset's in its own order (R3.3): a
// list when its condition holds, empty otherwise. An item identical to one
// an earlier preset adds is there only when that preset does not match
// (R3.4 between presets); an item identical to an earlier one of its own
// preset is not there at all. The items are dyn, so that they compare with
// the pod's typed items.
func (c *compiler) items(of func(*v1alpha1.PodPreset) []any) ([]string, error) {
	var terms []string
	for i, p := range c.presets {
		var (
			cond    string
			pending []string
		)
		flush := func() {
			if len(pending) > 0 {
				terms = append(terms, fmt.Sprintf("(%s ? [%s] : [])", cond, strings.Join(pending, ", ")))
				pending = nil
			}
		}
		own := of(p)
		for j, item := range own {
			if slices.ContainsFunc(own[:j], func(earlier any) bool { return equality.Semantic.DeepEqual(earlier, item) }) {
				continue
			}
			conds := []string{c.matches(i)}
			for k := range i {
				if slices.ContainsFunc(of(c.presets[k]), func(earlier any) bool { return equality.Semantic.DeepEqual(earlier, item) }) {
					conds = append(conds, "!"+c.matches(k))
				}
			}
			lit, err := literal(item)
			if err != nil {
				return nil, fmt.Errorf("pod preset %s/%s: %w", p.Namespace, p.Name, err)
			}
			if next := strings.Join(conds, " && "); next != cond {
				flush()
				cond = next
			}
			pending = append(pending, "dyn("+lit+")")
		}
		flush()
	}
	return terms, nil
}

// annotations are the terms of the list of [key, JSON pointer,
// resourceVersion] of the matching presets' annotations (R3.7).
func (c *compiler) annotations() []string {
	terms := make([]string, len(c.presets))
	for i, p := range c.presets {
		key := merge.AnnotationKey(p.Name)
		terms[i] = fmt.Sprintf("(%s ? [[%s, %s, %s]] : [])", c.matches(i), quote(key), quote("/metadata/annotations/"+escapeKey(key)), quote(p.ResourceVersion))
	}
	return terms
}

// conflict is true when a matching preset conflicts (R4.1): with another
// matching preset, or itself (static), or with an item of the pod: one
// that has the key of an item the presets add and different contents,
// found by looking its keys up in the maps of those items.
func (c *compiler) conflict() string {
	terms := []string{"variables.static"}
	for _, l := range lists {
		var clash []string
		for _, k := range l.keys {
			clash = append(clash, fmt.Sprintf("(%[1]s in variables.%[2]sBy%[3]s && variables.%[2]sBy%[3]s[%[1]s] != a)", k.expr("a"), l.field, k.name))
		}
		exists := func(list string) string { return fmt.Sprintf("%s.exists(a, %s)", list, strings.Join(clash, " || ")) }
		if l.field == "volumes" {
			terms = append(terms, fmt.Sprintf("(has(object.spec.volumes) && %s)", exists("object.spec.volumes")))
			continue
		}
		for _, containers := range []string{"initContainers", "containers"} {
			terms = append(terms, fmt.Sprintf("(has(object.spec.%[1]s) && object.spec.%[1]s.exists(c, has(c.%[2]s) && %[3]s))",
				containers, l.field, exists("c."+l.field)))
		}
	}
	return strings.Join(terms, " ||\n")
}

// patch is the JSONPatch expression: nothing when no preset matches or one
// conflicts (R4.2, R4.4); otherwise the annotations (R3.7), then, for each
// list, the items it lacks appended (R3.3), or the list added when the pod
// has none: an item with the key of one the list has is identical to it,
// as there is no conflict (R3.4). Items are appended one patch each: the
// pod's own items are typed values that a patch's value cannot hold.
func (c *compiler) patch() string {
	parts := []string{
		// One patch for them all when the pod has no annotations; else
		// one per annotation it lacks or holds with another value.
		`(!has(object.metadata.annotations) ? [JSONPatch{op: "add", path: "/metadata/annotations", value: variables.annotations.transformMapEntry(i, a, {a[0]: a[2]})}] : ` +
			`variables.annotations.filter(a, !(a[0] in object.metadata.annotations) || object.metadata.annotations[a[0]] != a[2]).map(a, JSONPatch{op: "add", path: a[1], value: a[2]}))`,
	}
	for _, l := range lists {
		if l.field == "volumes" {
			parts = append(parts, appendTo(l, "object.spec.volumes", `"/spec/volumes"`))
			continue
		}
		for _, containers := range []string{"initContainers", "containers"} {
			parts = append(parts, fmt.Sprintf(`(has(object.spec.%[1]s) ? object.spec.%[1]s.transformList(i, c, %[2]s).flatten() : [])`,
				containers, appendTo(l, "c."+l.field, fmt.Sprintf(`"/spec/%s/" + string(i) + "/%s"`, containers, l.field))))
		}
	}
	return "variables.conflict || !variables.matched ? [] : " + concat(parts, "\n")
}

// appendTo writes the patches that add the items of variables.<field> that
// list (a CEL expression, at path) lacks. The keys the list holds are a
// map, made from its keys sorted with duplicates dropped (a pod may repeat
// an item; a map literal may not repeat a key). The environment has no
// cel.bind: [x].map(v, e(v))[0] binds v to x in e.
func appendTo(l itemList, list, path string) string {
	key := l.keys[0]
	present := fmt.Sprintf(`[%[1]s.filter(a, %[2]s in variables.%[3]sBy%[4]s).map(a, %[2]s).sort()].map(s, `+
		`s.transformList(j, k, j == 0 || s[j - 1] != k, k).transformMapEntry(j, k, {k: true}))[0]`,
		list, key.expr("a"), l.field, key.name)
	return fmt.Sprintf(`(has(%[1]s) ? [%[4]s].map(present, variables.%[3]s.filter(b, !(%[5]s in present)).map(b, JSONPatch{op: "add", path: %[2]s + "/-", value: b}))[0] : `+
		`size(variables.%[3]s) == 0 ? [] : [JSONPatch{op: "add", path: %[2]s, value: variables.%[3]s}])`, list, path, l.field, present, key.expr("b"))
}

// escapeKey escapes a JSON pointer token (RFC 6901): ~ as ~0, / as ~1.
func escapeKey(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// concat is the concatenation of lists, and anyOf the disjunction of
// booleans, written as one list literal rather than a chain of + or ||:
// CEL's parser refuses a chain of a few hundred operators (max recursion
// depth exceeded). With no terms, they are the empty list and false.
func concat(lists []string, sep string) string {
	switch len(lists) {
	case 0:
		return "[]"
	case 1:
		return lists[0]
	}
	return "[" + sep + strings.Join(lists, ","+sep) + "].flatten()"
}

func anyOf(terms []string, sep string) string {
	switch len(terms) {
	case 0:
		return "false"
	case 1:
		return terms[0]
	}
	return "[" + sep + strings.Join(terms, ","+sep) + "].exists(t, t)"
}
