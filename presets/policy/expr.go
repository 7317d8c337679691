package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// The API server's limits and its CEL runtime shape the generated CEL
// (docs/policy.md):
//   - cel-go folds a list or map literal of constants into a constant when
//     it plans the expression, so the presets' items are written as
//     literals that depend on nothing: runs of items under one condition,
//     and maps from each item's key to the items with that key, which cost
//     nothing per pod. What a pod decides (which presets match, which items
//     it holds) is the only work done per admission.
//   - an expression may hold at most 100,000 code points, so what grows
//     with the number of presets is split into variables of at most
//     chunkTerms terms and chunkChars characters, joined by one more;
//   - cel-go's runtime cost tracker keeps a stack of the values an
//     evaluation produced and, for each ternary and each variable it reads,
//     searches it from the top; an expression of n terms costs n² there,
//     which chunkTerms bounds (each variable is evaluated on its own stack);
//   - the cost budget (1,000,000 per expression, 10,000,000 per pod) counts
//     every iteration of a comprehension: the pod's items are looked up by
//     key in the maps, never compared pairwise with the presets' (an API
//     server admits the policy's output a second time, when the pod holds
//     every item of every matching preset).
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
	// conds are the conditions under which items are added, each once, in
	// the order first seen: variables.conds[i] is whether conds[i] holds.
	conds []string
	// keyed are the map variables of each keyMaps name: none when no
	// preset has an item of its kind.
	keyed map[string][]string
	// selectors are the first variables: labels and the selectors p<i>,
	// which the warning policy needs too.
	selectors int
	// adds are the variables of what the patch adds, in the order the
	// patches apply (additions).
	adds []string
	// items are, for each of lists, the entries of the items the presets
	// add.
	items [][]entry
}

// matches is the variable that says whether preset i selects the pod:
// p<j>, j the first preset with the same selector (presets often share
// one, and each variable is an evaluation of its own).
func (c *compiler) matches(i int) string { return fmt.Sprintf("variables.p%d", c.selects[i]) }

// variables are, in order: the pod's labels; p<i>, whether preset i (and
// every later one with its selector) selects the pod; static, whether
// matching presets conflict among themselves; conds; per list, the items
// the matching presets add, in order, and the maps of all presets' items
// by key; annotations; the ways to conflict (conflicts) and conflict,
// whether one holds; matched; and what the patch adds (additions).
func (c *compiler) variables() ([]admissionregistrationv1.Variable, error) {
	c.add("labels", "has(object.metadata.labels) ? object.metadata.labels : {}")
	first := map[string]int{}
	c.selects = make([]int, len(c.presets))
	var matched []string
	for i, p := range c.presets {
		sel, err := selector(p.Spec.Selector, "variables.labels")
		if err != nil {
			return nil, fmt.Errorf("pod preset %s/%s has an invalid selector: %w", p.Namespace, p.Name, err)
		}
		j, seen := first[sel]
		if !seen {
			j = i
			first[sel] = i
			c.add(fmt.Sprintf("p%d", i), sel)
			matched = append(matched, fmt.Sprintf("variables.p%d", i))
		}
		c.selects[i] = j
	}
	c.selectors = len(c.vars)
	c.joined("static", c.static(), anyOf)
	c.items = make([][]entry, len(lists))
	for i, l := range lists {
		var err error
		if c.items[i], err = c.entries(l); err != nil {
			return nil, err
		}
	}
	// conds is one list: its terms are short, one per distinct condition.
	c.add("conds", "["+strings.Join(c.conds, ", ")+"]")
	for i, l := range lists {
		c.joined(l.field, runs(c.items[i]), func(terms []string, sep string) string { return "dyn(" + concat(terms, sep) + ")" })
		for _, k := range l.keys {
			c.keyMaps(l.field+"By"+k.name, k, c.items[i])
		}
	}
	c.joined("annotations", c.annotations(), concat)
	// || stops at the first way to conflict that holds.
	c.add("conflict", strings.Join(c.conflicts(), " || "))
	c.joined("matched", matched, anyOf)
	c.adds = c.additions()
	return c.vars, nil
}

func (c *compiler) add(name, expr string) {
	c.vars = append(c.vars, admissionregistrationv1.Variable{Name: name, Expression: expr})
}

// joined adds the variable name, join(terms): as one expression when the
// terms are few and short, or as variables name0, name1, … of a chunk each
// and name joining them. With no terms, join must give the empty value.
func (c *compiler) joined(name string, terms []string, join func(terms []string, sep string) string) {
	c.vars = append(c.vars, joinedVariables(name, terms, join)...)
}

// joinedVariables are the variables of joined.
func joinedVariables(name string, terms []string, join func(terms []string, sep string) string) []admissionregistrationv1.Variable {
	chunks := chunk(terms)
	if len(chunks) <= 1 {
		return []admissionregistrationv1.Variable{{Name: name, Expression: join(terms, "\n")}}
	}
	vars := make([]admissionregistrationv1.Variable, 0, len(chunks)+1)
	parts := make([]string, len(chunks))
	for i, ch := range chunks {
		parts[i] = fmt.Sprintf("variables.%s%d", name, i)
		vars = append(vars, admissionregistrationv1.Variable{Name: fmt.Sprintf("%s%d", name, i), Expression: join(ch, "\n")})
	}
	return append(vars, admissionregistrationv1.Variable{Name: name, Expression: join(parts, " ")})
}

// chunk splits terms into runs of at most chunkTerms terms and chunkChars
// characters (a longer term is a chunk of its own).
func chunk(terms []string) [][]string {
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
	return chunks
}

// static are the terms of "matching presets conflict among themselves"
// (R4.1): a preset that conflicts with itself, or two that conflict with
// each other, decided here by the reference merge engine on a pod with one
// empty container. Items conflict only when they share a key (R3.5), so
// only the pairs of presets with an item key in common are merged.
func (c *compiler) static() []string {
	var terms []string
	self := make([]bool, len(c.presets))
	for i, p := range c.presets {
		if self[i] = len(merge.Apply(probePod(), []*v1alpha1.PodPreset{p}).Conflicts) > 0; self[i] {
			terms = append(terms, c.matches(i))
		}
	}
	for _, pair := range c.sharingKeys() {
		i, j := pair[0], pair[1]
		if !self[i] && !self[j] && len(merge.Apply(probePod(), []*v1alpha1.PodPreset{c.presets[i], c.presets[j]}).Conflicts) > 0 {
			terms = append(terms, fmt.Sprintf("(%s && %s)", c.matches(i), c.matches(j)))
		}
	}
	return terms
}

// sharingKeys are the pairs of presets (i < j, in order) that have an item
// of one list with one key equal.
func (c *compiler) sharingKeys() [][2]int {
	pairs := map[[2]int]bool{}
	for _, l := range lists {
		for _, k := range l.keys {
			holders := map[string][]int{}
			for i, p := range c.presets {
				for _, item := range l.items(p) {
					v := k.value(item)
					if h := holders[v]; len(h) == 0 || h[len(h)-1] != i {
						holders[v] = append(h, i)
					}
				}
			}
			for _, h := range holders {
				for a := range h {
					for _, j := range h[a+1:] {
						pairs[[2]int{h[a], j}] = true
					}
				}
			}
		}
	}
	return slices.SortedFunc(maps.Keys(pairs), func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
}

// probePod is a pod with one container and nothing else: merging presets
// into it shows the conflicts they have among themselves.
func probePod() *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "probe"}}}}
}

// annotations are the terms of the list of [key, JSON pointer,
// resourceVersion] of the matching presets' annotations (R3.7), one
// constant list per run of presets of one selector.
func (c *compiler) annotations() []string {
	var es []entry
	for i, p := range c.presets {
		key := merge.AnnotationKey(p.Name)
		es = append(es, entry{cond: c.matches(i), literal: fmt.Sprintf("[%s, %s, %s]",
			quote(key), quote("/metadata/annotations/"+escapeKey(key)), quote(p.ResourceVersion))})
	}
	return runs(es)
}

// conflicts adds the variables of the ways a matching preset may conflict
// (R4.1), one per list and kind of container (a variable is compiled on
// its own: additions), and returns them with static, a conflict with
// another matching preset or itself: conflict_volumes,
// conflict_env_initContainers, … each whether an item of the pod has the
// key of an item a matching preset adds, and different contents, found by
// looking its keys up in the maps.
func (c *compiler) conflicts() []string {
	names := []string{"variables.static"}
	for _, l := range lists {
		var clash []string
		for _, k := range l.keys {
			for _, m := range c.keyed[l.field+"By"+k.name] {
				clash = append(clash, fmt.Sprintf("(%[1]s in %[2]s && %[2]s[%[1]s].exists(e, variables.conds[e[0]] && e[1] != a))", k.expr("a"), m))
			}
		}
		if len(clash) == 0 {
			continue
		}
		exists := func(list string) string {
			return fmt.Sprintf("%s.exists(a, %s)", own(list, l.field), strings.Join(clash, " || "))
		}
		if l.field == "volumes" {
			c.add("conflict_volumes", fmt.Sprintf("has(object.spec.volumes) && %s", exists("object.spec.volumes")))
			names = append(names, "variables.conflict_volumes")
			continue
		}
		for _, containers := range []string{"initContainers", "containers"} {
			name := "conflict_" + l.field + "_" + containers
			c.add(name, fmt.Sprintf("has(object.spec.%[1]s) && object.spec.%[1]s.exists(c, has(c.%[2]s) && %[3]s)",
				containers, l.field, exists("c."+l.field)))
			names = append(names, "variables."+name)
		}
	}
	return names
}

// additions adds the variables that say what the patch adds, one per list
// and kind of container (a variable is compiled on its own, and the CEL
// type checker's work grows with the square of an expression's size: in
// one expression they took 60 ms to compile for a handful of presets, on
// each write of the policy): add_annotations, then add_volumes,
// add_env_initContainers, add_env_containers, … each a list of [JSON
// pointer, value] pairs (both dyn: a list literal holds values of one
// type here). It returns their names, in the order their patches apply.
func (c *compiler) additions() []string {
	// One patch for them all when the pod has no annotations; else one per
	// annotation it lacks or holds with another value.
	c.add("add_annotations", `!has(object.metadata.annotations) ? [[dyn("/metadata/annotations"), dyn(variables.annotations.transformMapEntry(i, a, {a[0]: a[2]}))]] : `+
		`variables.annotations.filter(a, !(a[0] in object.metadata.annotations) || object.metadata.annotations[a[0]] != a[2]).map(a, [dyn(a[1]), dyn(a[2])])`)
	names := []string{"variables.add_annotations"}
	for n, l := range lists {
		if len(c.items[n]) == 0 {
			// No preset adds an item to this list: nothing to patch.
			continue
		}
		if l.field == "volumes" {
			c.add("add_volumes", c.appendTo(l, "object.spec.volumes", pointer{literal: "/spec/volumes"}))
			names = append(names, "variables.add_volumes")
			continue
		}
		for _, containers := range []string{"initContainers", "containers"} {
			name := "add_" + l.field + "_" + containers
			c.add(name, fmt.Sprintf(`has(object.spec.%[1]s) ? object.spec.%[1]s.transformList(i, c, ["/spec/%[1]s/" + string(i) + "/%[2]s"].map(p, %[3]s)[0]).flatten() : []`,
				containers, l.field, c.appendTo(l, "c."+l.field, pointer{bound: "p"})))
			names = append(names, "variables."+name)
		}
	}
	return names
}

// patch is the JSONPatch expression: nothing when no preset matches or one
// conflicts (R4.2, R4.4); otherwise the additions: the annotations (R3.7),
// then, for each list, the items it lacks appended (R3.3), or the list
// added when the pod has none: an item with the key of one the list has is
// identical to it, as there is no conflict (R3.4). The additions are
// [JSON pointer, value] pairs, each an add, and [JSON pointer, from,
// "move"] triples, each a move (appendTo).
func (c *compiler) patch(compiled string, additions []string) string {
	// A probe pod is told what the policy was compiled from (ProbeAnnotation).
	probe := fmt.Sprintf(`(has(object.metadata.annotations) && %s in object.metadata.annotations ? [JSONPatch{op: "replace", path: %s, value: %s}] : [])`,
		quote(ProbeAnnotation), quote("/metadata/annotations/"+escapeKey(ProbeAnnotation)), quote(compiled))
	return fmt.Sprintf(`%s + (variables.conflict || !variables.matched ? [] : %s.map(p, size(p) == 3 ? JSONPatch{op: "move", path: p[0], from: p[1]} : JSONPatch{op: "add", path: p[0], value: p[1]}))`, probe, concat(additions, "\n"))
}

// appended is true when a list (a CEL expression) ends with the items of
// variables.<field>, as it does when this policy appended them: then it
// holds them all, and they cannot conflict with themselves. The test is
// one native comparison, where looking every item up would be a step of
// CEL each; an API server admits the policy's output a second time.
func appended(list, field string) string {
	return fmt.Sprintf("(size(%[1]s) >= size(variables.%[2]s) && %[1]s.slice(size(%[1]s) - size(variables.%[2]s), size(%[1]s)) == variables.%[2]s)", list, field)
}

// own is a list (a CEL expression) without the items appended of
// variables.<field>: the items that may conflict.
func own(list, field string) string {
	return fmt.Sprintf("(%[3]s ? %[1]s.slice(0, size(%[1]s) - size(variables.%[2]s)) : %[1]s)", list, field, appended(list, field))
}

// appendTo writes the patches that add the items of variables.<field>
// that list (a CEL expression, at path) lacks: none when it ends with them
// all (appended), the whole list when it has none, else the missing items
// appended. The pod's own items are typed values that a patch's value
// cannot hold, so a list cannot be written whole; each missing item is an
// add of its own ("…/-") when the list holds as many items as are missing,
// less one; else the missing items are added as one list beside it
// (<path>-presetsim), the list's own items moved in front of them, last
// first, and that list moved in its place: own + 2 patches instead of
// missing ones. The API server turns each patch's value into JSON on its
// own, at a cost per patch (100 one-item presets, a pod with its service
// account token's volume and mount: 4.0 ms per admission with an add per
// item, 2.5 ms with none, in k8s.io/apiserver's plug-ins in-process).
//
// The keys the list holds that some preset's item has are a map, made from
// those keys sorted with duplicates dropped (a pod may repeat an item; a
// map may not repeat a key). The environment has no cel.bind:
// [x].map(v, e(v))[0] binds v to x in e.
//
// Each item's key is written once, and a container's path is computed
// once (pointer): the API server's type checker costs the square of the
// calls in an expression (docs/policy.md), and these are the largest.
func (c *compiler) appendTo(l itemList, list string, path pointer) string {
	key := l.keys[0]
	var known []string
	for _, m := range c.keyed[l.field+"By"+key.name] {
		known = append(known, "k in "+m)
	}
	if len(known) == 0 {
		known = []string{"false"}
	}
	present := fmt.Sprintf(`[%[1]s.map(a, %[2]s).filter(k, %[3]s).sort()].map(s, `+
		`s.transformList(j, k, j == 0 || s[j - 1] != k, k).transformMapEntry(j, k, {k: true}))[0]`,
		list, key.expr("a"), strings.Join(known, " || "))
	missing := fmt.Sprintf(`[%[1]s].map(present, variables.%[2]s.filter(b, !(%[3]s in present)))[0]`, present, l.field, key.expr("b"))
	insert := fmt.Sprintf(`size(%[1]s) + 1 >= size(m) ? m.map(b, [dyn(%[2]s), dyn(b)]) : `+
		`[[dyn(%[3]s), dyn(m)]] + %[1]s.transformList(oi, ov, [dyn(%[4]s), dyn(%[5]s + string(size(%[1]s) - 1 - oi)), dyn("move")]) + [[dyn(%[6]s), dyn(%[3]s), dyn("move")]]`,
		list, path.at("/-"), path.at("-presetsim"), path.at("-presetsim/0"), path.at("/"), path.at(""))
	return fmt.Sprintf(`(has(%[1]s) ? (%[4]s ? [] : [%[5]s].map(m, %[6]s)[0]) : `+
		`size(variables.%[3]s) == 0 ? [] : [[dyn(%[2]s), dyn(variables.%[3]s)]])`,
		list, path.at(""), l.field, appended(list, l.field), missing, insert)
}

// pointer is where appendTo's patches go: a JSON pointer known when the
// policy is compiled (literal), or a CEL variable bound to one (bound).
type pointer struct{ literal, bound string }

// at is the CEL expression of the pointer with suffix appended.
func (p pointer) at(suffix string) string {
	switch {
	case p.bound == "":
		return quote(p.literal + suffix)
	case suffix == "":
		return p.bound
	}
	return p.bound + " + " + quote(suffix)
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
