package policy

import (
	"fmt"
	"regexp"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// The API server evaluates a policy with reinvocationPolicy IfNeeded again
// after its own change to the pod, whether or not anything ran after it
// (docs/policy.md): for a pod the policy has just mutated, that second
// evaluation finds nothing to do, and still costs the CEL, a JSON patch of
// the whole pod and its conversions. A match condition, evaluated before
// any of that, skips the policy when its patch would be empty.

// appliedGate is the match condition "the policy has something to do": the
// pod is a probe, or a preset that selects it lacks its annotation at its
// version, or the volumes or a container's env, envFrom or volume mounts
// do not end with the items the matching presets add (variables.<field>,
// written out: a match condition cannot read variables). When it is false
// the patch is empty: every annotation is there, and every list ends with
// what the policy appends (appended). ok is false when the condition would
// pass maxGate; the policy then has no such gate.
func (c *compiler) appliedGate() (admissionregistrationv1.MatchCondition, bool) {
	// p is the selectors by preset index (false for a preset whose selector
	// is an earlier one's, which its conditions do not name); m is [labels,
	// annotations]; e is the items each of lists adds.
	selectorVar := regexp.MustCompile(`variables\.p(\d+)`)
	sels := make([]string, len(c.presets))
	for i, p := range c.presets {
		sels[i] = "false"
		if c.selects[i] == i {
			sel, err := selector(p.Spec.Selector, "m[0]")
			if err != nil {
				return admissionregistrationv1.MatchCondition{}, false
			}
			sels[i] = sel
		}
	}
	added := make([]string, len(lists))
	for i := range lists {
		terms := runs(c.added[i])
		for t := range terms {
			terms[t] = selectorVar.ReplaceAllString(terms[t], "p[$1]")
		}
		added[i] = "dyn(" + concat(terms, "") + ")"
	}
	terms := []string{fmt.Sprintf("%s in m[1]", quote(ProbeAnnotation))}
	for i := range c.presets {
		terms = append(terms, fmt.Sprintf("(p[%d] && !%s)", c.selects[i], c.annotated(i, "m[1]")))
	}
	var lacks []string
	for i, l := range lists {
		if l.field == "volumes" {
			terms = append(terms, "!"+endsWith("(has(object.spec.volumes) ? object.spec.volumes : [])", fmt.Sprintf("e[%d]", i)))
			continue
		}
		lacks = append(lacks, "!"+endsWith(fmt.Sprintf("(has(c.%s) ? c.%s : [])", l.field, l.field), fmt.Sprintf("e[%d]", i)))
	}
	terms = append(terms, fmt.Sprintf("((has(object.spec.initContainers) ? object.spec.initContainers : []) + (has(object.spec.containers) ? object.spec.containers : [])).exists(c, %s)",
		strings.Join(lacks, " || ")))
	expr := fmt.Sprintf("[[%s, %s]].map(m, [[%s]].map(p, [[%s]].map(e, %s)[0])[0])[0]",
		labelsOrNone, annotationsOrNone, strings.Join(sels, ",\n"), strings.Join(added, ",\n"), anyOf(terms, "\n"))
	if len(expr) > maxGate {
		return admissionregistrationv1.MatchCondition{}, false
	}
	return admissionregistrationv1.MatchCondition{Name: "not-yet-applied", Expression: expr}, true
}

// endsWith is whether list ends with the items of tail (CEL expressions):
// one native comparison, as appended.
func endsWith(list, tail string) string {
	return fmt.Sprintf("(size(%[1]s) >= size(%[2]s) && %[1]s.slice(size(%[1]s) - size(%[2]s), size(%[1]s)) == %[2]s)", list, tail)
}
