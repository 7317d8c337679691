package policy

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"presetsim.dev/presetsim/presets/merge"
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
// presets that select it — as the policy's own output does (tails.go).
// The skip is sound, not complete:
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
	// A preset's annotation is looked at only when its selector selects
	// the pod.
	expr, ok := c.gate(tailKeys, func(group []int) string {
		return anyOf(c.unapplied(func(i int) string { return fmt.Sprintf("s[%d]", group[i]) }), "\n")
	})
	if !ok {
		return admissionregistrationv1.MatchCondition{}, false
	}
	return admissionregistrationv1.MatchCondition{Name: "not-applied-yet", Expression: expr}, true
}

// unapplied are the terms of "the pod is a probe, or a preset selects it
// and its annotation at its version is missing", for an expression that
// binds m to [labels, annotations] ([x].map(m, e(m))[0]: the environment
// has no cel.bind): one term per selector, selected(i) being whether the
// selector of preset i (the first with it) selects the pod.
func (c *compiler) unapplied(selected func(i int) string) []string {
	terms := []string{fmt.Sprintf("%s in m[1]", quote(ProbeAnnotation))}
	for i := range c.presets {
		if c.selects[i] != i {
			continue // written with the first preset of its selector
		}
		var group []int
		for k := range c.presets {
			if c.selects[k] == i {
				group = append(group, k)
			}
		}
		terms = append(terms, fmt.Sprintf("((%s) && %s)", selected(i), c.anyUnannotated(group, "m[1]")))
	}
	return terms
}

// anyUnannotated is whether annotations (a CEL map) lack the annotation at
// its version of one of the presets (indexes into c.presets, at least one).
// For several: the first's is absent, or the list of their keys' optional
// values differs from the list of their versions as optionals — two steps
// of CEL per preset (a look-up, an optional.of) and one native comparison
// of the lists, where a test per preset is six steps. The API server
// evaluates it for every pod the mutating policy sees, on every preset
// that selects a pod it mutated.
func (c *compiler) anyUnannotated(presets []int, annotations string) string {
	if len(presets) == 1 {
		return "!" + c.annotated(presets[0], annotations)
	}
	got := make([]string, len(presets))
	want := make([]string, len(presets))
	for n, i := range presets {
		got[n] = fmt.Sprintf("%s[?%s]", annotations, c.annotationKey(i))
		want[n] = fmt.Sprintf("optional.of(%s)", quote(c.presets[i].ResourceVersion))
	}
	return fmt.Sprintf("(!(%s in %s) || [%s] != [%s])", c.annotationKey(presets[0]), annotations, strings.Join(got, ", "), strings.Join(want, ", "))
}

// annotationKey is preset i's annotation key (R3.7), a CEL string.
func (c *compiler) annotationKey(i int) string { return quote(merge.AnnotationKey(c.presets[i].Name)) }

// annotated is whether annotations (a CEL map) hold preset i's annotation
// at its version (R3.7): the mutating policy applied the preset.
func (c *compiler) annotated(i int, annotations string) string {
	return fmt.Sprintf("(%[1]s in %[3]s && %[3]s[%[1]s] == %[2]s)", c.annotationKey(i), quote(c.presets[i].ResourceVersion), annotations)
}
