package policy

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// An API server admits an IfNeeded policy's output a second time: the
// mutating-policy dispatcher reinvokes every IfNeeded policy whose patch
// changed the object (k8s.io/apiserver v0.37.1, mutating/dispatcher.go,
// whatever ran after it), and each evaluation converts the pod to CEL
// values, compares its items with the presets', and encodes, patches and
// decodes the whole pod, even for an empty patch. The second evaluation
// doubled what the policy added to a pod create.
//
// appliedCondition is a match condition that skips the policy where its
// patch would be empty because the pod already holds what it would add: no
// preset that selects the pod lacks its annotation at its version, and
// each list of the pod ends with the keys, in order, of the items of the
// presets that select it — as the policy's own output does. The skip is
// sound, not complete:
//
//   - every item the patch could add is an item of a preset that selects
//     the pod, so its key is among the keys the pod's list ends with;
//   - a pod's item with an item's key is identical to it (not added,
//     R3.4) or conflicts with it (nothing is added, R4.2);
//   - the annotations (R3.7) are all there.
//
// Where it cannot tell (a pod that held some of the items before, an item
// two presets of different selectors add, a list a later webhook appended
// to), the condition holds and the policy decides, exactly as before. The
// keys are compared as strings, never the items: a key is a field or
// three, an item all of its fields, on typed values the API server
// reflects over. Each selector is evaluated once, and a preset's
// annotation is looked at only when its selector selects the pod. ok is
// false when a selector cannot be written, or the expression would pass
// maxGate (a namespace of several hundred presets): the policy then always
// runs, as exactly.
func (c *compiler) appliedCondition() (admissionregistrationv1.MatchCondition, bool) {
	// s[g] is whether the g-th distinct selector selects the pod, each
	// evaluated once.
	var sels []string
	group := make([]int, len(c.presets))
	for i, p := range c.presets {
		if c.selects[i] != i {
			group[i] = group[c.selects[i]]
			continue
		}
		sel, err := selector(p.Spec.Selector, "m[0]")
		if err != nil {
			return admissionregistrationv1.MatchCondition{}, false
		}
		group[i] = len(sels)
		sels = append(sels, sel)
	}
	// An annotation is looked at only when its selector selects the pod
	// (s[g] cannot fail to be written, so unapplied's ok is true).
	unapplied, _ := c.unapplied(func(i int) (string, error) { return fmt.Sprintf("s[%d]", group[i]), nil })
	// When no preset that selects the pod lacks its annotation, the items
	// the policy could add are those of the presets that select it; k[n]
	// are their keys, that the n-th list must end with.
	var keys, volumes, inContainers []string
	for n, l := range lists {
		if len(c.items[n]) == 0 {
			continue
		}
		k := fmt.Sprintf("k[%d]", len(keys))
		keys = append(keys, concat(keyRuns(l, c.items[n], group), " "))
		if l.field == "volumes" {
			volumes = append(volumes, endsWith("object.spec.volumes", k, l.keys[0]))
			continue
		}
		inContainers = append(inContainers, endsWith("c."+l.field, k, l.keys[0]))
	}
	present := volumes
	if len(inContainers) > 0 {
		for _, containers := range []string{"initContainers", "containers"} {
			present = append(present, fmt.Sprintf("(!has(object.spec.%[1]s) || object.spec.%[1]s.all(c, %[2]s))", containers, strings.Join(inContainers, " && ")))
		}
	}
	held := "true"
	if len(present) > 0 {
		held = fmt.Sprintf("[[%s]].map(k, %s)[0]", strings.Join(keys, ",\n"), strings.Join(present, "\n&& "))
	}
	expr := fmt.Sprintf("[[%s, %s]].map(m, [[%s]].map(s, %s\n|| !%s)[0])[0]",
		labelsOrNone, annotationsOrNone, strings.Join(sels, ",\n"), anyOf(unapplied, "\n"), held)
	if len(expr) > maxGate {
		return admissionregistrationv1.MatchCondition{}, false
	}
	return admissionregistrationv1.MatchCondition{Name: "not-applied-yet", Expression: expr}, true
}

// keyRuns are the terms of the list of the keys of es, in order: one
// constant list per run of items of presets of one selector, under "it
// selects the pod" (s[g]).
func keyRuns(l itemList, es []entry, group []int) []string {
	var terms []string
	for i := 0; i < len(es); {
		j := i
		var ks []string
		for ; j < len(es) && group[es[j].preset] == group[es[i].preset]; j++ {
			ks = append(ks, quote(l.keys[0].value(es[j].item)))
		}
		terms = append(terms, fmt.Sprintf("(s[%d] ? [%s] : [])", group[es[i].preset], strings.Join(ks, ", ")))
		i = j
	}
	return terms
}

// endsWith is whether list (a CEL expression) ends with the keys k, by
// key: an absent list ends with no keys only.
func endsWith(list, k string, key itemKey) string {
	return fmt.Sprintf("(has(%[1]s) ? size(%[1]s) >= size(%[2]s) && %[1]s.slice(size(%[1]s) - size(%[2]s), size(%[1]s)).map(x, %[3]s) == %[2]s : size(%[2]s) == 0)",
		list, k, key.expr("x"))
}
