package policy

import (
	"fmt"
	"strings"
)

// What the policies know of a pod the mutating policy applied the presets
// to: its patch appends the items of the presets that select the pod to
// each list, in order, so each list of its output ends with them. Both
// gates ask whether a pod has that shape, which is cheap to check (one
// native comparison per list, never a search), and neither needs it to be
// the policy's output:
//
//   - by key (tailKeys): every item the patch could add has its key among
//     those the lists end with, so the patch would add no item
//     (appliedCondition);
//   - by item (tailItems): every item of every preset that selects the pod
//     is held, identical, so none conflicts — the reference skips an item
//     that is there already and compares nothing (R3.4) — and the warning
//     policy has nothing to say (warnGate). The annotations say nothing of
//     that: a pod may carry them at their versions and a different item
//     (one copied from a pod the presets were applied to, then edited).
//
// A pod of another shape (one that held an item before, an item two
// presets of different selectors add, a list a later webhook appended to)
// is not held: the policy then decides in full.
type tailBy int

const (
	tailKeys tailBy = iota
	tailItems
)

// tailRuns are the terms of the CEL list of what the presets that select
// the pod add to the n-th of lists, in order, as by compares them: one
// constant list per run of items of presets of one selector, under
// selected(i) (i the run's first preset; the presets of one selector
// select alike), a run cut where it would pass chunkChars.
func (c *compiler) tailRuns(n int, by tailBy, selected func(i int) string) []string {
	l, es := lists[n], c.items[n]
	var terms []string
	for i := 0; i < len(es); {
		j, size := i, 0
		var vs []string
		for ; j < len(es) && c.selects[es[j].preset] == c.selects[es[i].preset]; j++ {
			v := es[j].literal
			if by == tailKeys {
				v = quote(l.keys[0].value(es[j].item))
			}
			if j > i && size+len(v) > chunkChars {
				break
			}
			size += len(v) + 2
			vs = append(vs, v)
		}
		terms = append(terms, fmt.Sprintf("(%s ? [%s] : [])", selected(es[i].preset), strings.Join(vs, ", ")))
		i = j
	}
	return terms
}

// tailsHeld is whether each list of the pod ends with ends[n] (a CEL list
// as tailRuns writes it; "" for a list no preset adds to), compared as by
// says.
func tailsHeld(ends []string, by tailBy) string {
	var volumes, inContainers []string
	for n, l := range lists {
		switch {
		case ends[n] == "":
		case l.field == "volumes":
			volumes = append(volumes, endsWith("object.spec.volumes", ends[n], by, l.keys[0]))
		default:
			inContainers = append(inContainers, endsWith("c."+l.field, ends[n], by, l.keys[0]))
		}
	}
	held := volumes
	if len(inContainers) > 0 {
		for _, containers := range []string{"initContainers", "containers"} {
			held = append(held, fmt.Sprintf("(!has(object.spec.%[1]s) || object.spec.%[1]s.all(c, %[2]s))", containers, strings.Join(inContainers, " && ")))
		}
	}
	if len(held) == 0 {
		return "true"
	}
	return strings.Join(held, "\n&& ")
}

// endsWith is whether list (a CEL expression) ends with k: by the items'
// first key, or by the items themselves. An absent list ends with no item
// only.
func endsWith(list, k string, by tailBy, key itemKey) string {
	end := fmt.Sprintf("%[1]s.slice(size(%[1]s) - size(%[2]s), size(%[1]s))", list, k)
	if by == tailKeys {
		end += fmt.Sprintf(".map(x, %s)", key.expr("x"))
	}
	return fmt.Sprintf("(has(%[1]s) ? size(%[1]s) >= size(%[2]s) && %[3]s == %[2]s : size(%[2]s) == 0)", list, k, end)
}

// gate is a match condition's expression: for m = [labels, annotations]
// and s[g], whether the g-th distinct selector selects the pod (each
// evaluated once), "open(group) || the lists are not held", the lists held
// as by says. ok is false when a selector cannot be written or the
// expression would pass maxGate (a namespace of several hundred presets).
func (c *compiler) gate(by tailBy, open func(group []int) string) (string, bool) {
	var sels []string
	group := make([]int, len(c.presets))
	for i, p := range c.presets {
		if c.selects[i] != i {
			group[i] = group[c.selects[i]]
			continue
		}
		sel, err := selector(p.Spec.Selector, "m[0]")
		if err != nil {
			return "", false
		}
		group[i] = len(sels)
		sels = append(sels, sel)
	}
	var runs, ends []string
	for n := range lists {
		if len(c.items[n]) == 0 {
			ends = append(ends, "")
			continue
		}
		ends = append(ends, fmt.Sprintf("k[%d]", len(runs)))
		runs = append(runs, concat(c.tailRuns(n, by, func(i int) string { return fmt.Sprintf("s[%d]", group[i]) }), " "))
	}
	held := tailsHeld(ends, by)
	if len(runs) > 0 {
		held = fmt.Sprintf("[[%s]].map(k, %s)[0]", strings.Join(runs, ",\n"), held)
	}
	expr := fmt.Sprintf("[[%s, %s]].map(m, [[%s]].map(s, %s\n|| !%s)[0])[0]",
		labelsOrNone, annotationsOrNone, strings.Join(sels, ",\n"), open(group), held)
	if len(expr) > maxGate {
		return "", false
	}
	return expr, true
}
