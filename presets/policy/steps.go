package policy

import (
	"fmt"
	"slices"

	"presetsim.dev/presetsim/presets/conflict"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// How the warning policy follows the reference's sequence without a fold.
//
// The reference adds the presets' items one at a time (presets by name,
// each preset's items in order) and compares each with what its list holds
// by then: the pod's items and the items added before it. An item that
// conflicts is not added, so whether a later item conflicts can depend on
// whether an earlier one did (a mount that clashed with the pod on its name
// is not there to clash with a later preset's mount on its path). CEL has
// no fold to replay that sequence, but its steps are known when the policy
// is written; only which presets select the pod, and what the pod holds,
// are left to CEL:
//
//   - after a step, an item is held when an item identical to it is in the
//     list: the pod's, or one an earlier step added;
//   - a step adds its item when its preset selects the pod, unless an
//     identical item is held (R3.4) or a different item that shares a key
//     with it is (a conflict, R4.1); lists only grow, so an item that
//     conflicted once conflicts at each later step too;
//   - an item that no different item of any preset shares a key with (an
//     uncontested one) conflicts exactly when the pod holds a different
//     item with its key. Only contested items need the sequence: each step
//     of theirs that a later step reads is a variable,
//     held_<list>_<step>, the list of, per container (per pod spec for
//     volumes), whether its item is held after it.

// step is one item a preset injects into one kind of list, in the
// reference's order. An item identical to an earlier one of its own preset
// takes no step: the reference skips it, or finds the same conflicts again.
type step struct {
	preset int
	item   any
	lit    string // the item as a CEL constant
	// class is the first step of an item identical to this one; prev the
	// latest earlier such step, -1 when none.
	class, prev int
	// rivals[k] are, for the list's key k, the latest earlier step of each
	// different item that shares that key with this one.
	rivals [][]int
	// contested: a different item of some preset shares a key with it.
	contested bool
}

// steps are the steps of one kind of list.
type steps struct {
	l     itemList
	steps []step
	// read[n]: a later step reads whether step n's item is held after it.
	read []bool
}

// stepsOf lays out the steps of the presets' items of l.
func (c *compiler) stepsOf(l itemList) (*steps, error) {
	s := &steps{l: l}
	// byKey[k] are the steps by the value of their key k: identical items
	// share every key, and rivals one.
	byKey := make([]map[string][]int, len(l.keys))
	for k := range byKey {
		byKey[k] = map[string][]int{}
	}
	for i, p := range c.presets {
		own := l.items(p)
		for j, item := range own {
			identical := func(other any) bool { return equality.Semantic.DeepEqual(other, item) }
			if slices.ContainsFunc(own[:j], identical) {
				continue
			}
			lit, err := literal(item)
			if err != nil {
				return nil, fmt.Errorf("pod preset %s/%s: %w", p.Namespace, p.Name, err)
			}
			n := len(s.steps)
			st := step{preset: i, item: item, lit: lit, class: n, prev: -1, rivals: make([][]int, len(l.keys))}
			for _, r := range slices.Backward(byKey[0][l.keys[0].value(item)]) {
				if identical(s.steps[r].item) {
					st.class, st.prev = s.steps[r].class, r
					break
				}
			}
			for k, key := range l.keys {
				v := key.value(item)
				seen := map[int]bool{st.class: true}
				for _, r := range slices.Backward(byKey[k][v]) {
					if class := s.steps[r].class; !seen[class] {
						seen[class] = true
						st.rivals[k] = append(st.rivals[k], r)
					}
				}
				byKey[k][v] = append(byKey[k][v], n)
			}
			s.steps = append(s.steps, st)
		}
	}
	contested := map[int]bool{} // by class
	for _, st := range s.steps {
		for _, rivals := range st.rivals {
			for _, r := range rivals {
				contested[st.class], contested[s.steps[r].class] = true, true
			}
		}
	}
	s.read = make([]bool, len(s.steps))
	for n := range s.steps {
		st := &s.steps[n]
		if st.contested = contested[st.class]; !st.contested {
			continue
		}
		if st.prev >= 0 {
			s.read[st.prev] = true
		}
		for _, rivals := range st.rivals {
			for _, r := range rivals {
				s.read[r] = true
			}
		}
	}
	return s, nil
}

// inContainers: the list is each container's, not the pod spec's.
func (s *steps) inContainers() bool { return s.l.field != "volumes" }

// scope is the CEL list of what holds the list: the pod spec for volumes,
// every init container and container otherwise (the variable
// containers). Each expression below is evaluated for one of them, c, at
// index ci.
func (s *steps) scope() string {
	if s.inContainers() {
		return "variables.containers"
	}
	return "[object.spec]"
}

// label is the CEL string of a conflict's description: the container's
// name appended to it for the lists of a container.
func (s *steps) label(description string) string {
	if s.inContainers() {
		return quote(description+conflict.InContainer) + " + c.name"
	}
	return quote(description)
}

func (s *steps) list() string { return "c." + s.l.field }

// podHolds: the pod holds an item identical to step n's.
func (s *steps) podHolds(n int) string {
	return fmt.Sprintf("(has(%[1]s) && dyn(%[2]s) in %[1]s)", s.list(), s.steps[n].lit)
}

// podHasKey: the pod holds an item with step n's key k.
func (s *steps) podHasKey(n, k int) string {
	return fmt.Sprintf("(%s in variables.%s[ci])", quote(s.l.keys[k].value(s.steps[n].item)), s.keysName(k))
}

// keysName names the variable of the keys k of the items of each element
// of the scope (keys).
func (s *steps) keysName(k int) string { return "keys_" + s.l.field + s.l.keys[k].name }

// keys are the variables of the keys of the items the pod holds, a list
// per element of the scope, one variable per key: each step looks its
// keys up in them, where writing the key's expression in each step would
// cost the API server's type checker the square of their number
// (docs/policy.md).
func (s *steps) keys() []admissionregistrationv1.Variable {
	vars := make([]admissionregistrationv1.Variable, len(s.l.keys))
	for k, key := range s.l.keys {
		vars[k] = admissionregistrationv1.Variable{Name: s.keysName(k), Expression: fmt.Sprintf(
			"%[1]s.map(c, has(%[2]s) ? %[2]s.map(a, %[3]s) : [])", s.scope(), s.list(), key.expr("a"))}
	}
	return vars
}

func (s *steps) heldName(n int) string { return fmt.Sprintf("held_%s_%d", s.l.field, n) }

// held: step n's item is held after step n.
func (s *steps) held(n int) string { return "variables." + s.heldName(n) + "[ci]" }

// before: an item identical to step n's is held before step n. For an
// uncontested item the pod's are enough: when the pod holds no item with
// its key, it conflicts with nothing whether or not an earlier step added
// it, and when the pod does, no earlier step added it.
func (s *steps) before(n int) string {
	if st := s.steps[n]; st.contested && st.prev >= 0 {
		return s.held(st.prev)
	}
	return s.podHolds(n)
}

// clash: a different item with step n's key k is held before step n.
func (s *steps) clash(n, k int) string {
	terms := []string{s.podHasKey(n, k)}
	for _, r := range s.steps[n].rivals[k] {
		terms = append(terms, s.held(r))
	}
	return anyOf(terms, " ")
}

// variables are held_<list>_<n> for each step n a later step reads.
func (s *steps) variables(c *compiler) []admissionregistrationv1.Variable {
	var vars []admissionregistrationv1.Variable
	for n, st := range s.steps {
		if !s.read[n] {
			continue
		}
		clashes := make([]string, len(s.l.keys))
		for k := range s.l.keys {
			clashes[k] = s.clash(n, k)
		}
		held := fmt.Sprintf("%s || (%s && !%s)", s.before(n), c.matches(st.preset), anyOf(clashes, " "))
		vars = append(vars, admissionregistrationv1.Variable{
			Name:       s.heldName(n),
			Expression: fmt.Sprintf("%s.transformList(ci, c, %s)", s.scope(), held),
		})
	}
	return vars
}

// conflicts are the terms of preset i's conflicts in the list, one per
// step of its own, for the element c of the scope: the description of each
// key its item conflicts on.
func (s *steps) conflicts(i int) []string {
	var terms []string
	for n, st := range s.steps {
		if st.preset != i {
			continue
		}
		labels := make([]string, len(s.l.keys))
		for k, key := range s.l.keys {
			labels[k] = fmt.Sprintf("(%s ? [%s] : [])", s.clash(n, k), s.label(conflictLabel(s.l.field, key, st.item)))
		}
		terms = append(terms, fmt.Sprintf("(%s ? [] : %s)", s.before(n), concat(labels, " ")))
	}
	return terms
}
