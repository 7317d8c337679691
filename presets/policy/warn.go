package policy

import (
	"encoding/json"
	"fmt"

	"presetsim.dev/presetsim/presets/conflict"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/presets/merge"
)

// A mutating policy returns no warning; the conflict warnings (R4.3) come
// from a ValidatingAdmissionPolicy with validationActions [Warn], which the
// API server evaluates after mutation. On a conflict the pod is unchanged
// (R4.2), so the warning policy sees it as submitted; without one the pod
// holds the presets' items, which then conflict with nothing.
//
// It has the mutating policy's first variables (labels and the selectors
// p<i>), then those of warnVariables, among them one per preset, w<i>: the
// conflicts of preset i, as conflict.Item.String gives them; and one
// validation per preset, failing when preset i selects the pod, the pod
// does not hold every item of the presets that select it (held, below)
// and preset i has conflicts, with the message of conflict.Report.Message
// ("Conflict on pod preset <name>: <conflict>; …"). The API server
// returns each failed validation as one warning, prefixed with
// "Validation failed for ValidatingAdmissionPolicy '<policy>' with
// binding '<binding>': ".
//
// The conflicts of a preset are found in the order of the reference merge
// (its volumes, then in each init container and container its env, envFrom
// and volume mounts, an item's keys in order), each once: an item
// conflicts on a key when no item it is identical to is already there and
// a different item with that key is. "Already there" is what the reference
// holds at that point: the pod's own items and the items that earlier
// matching presets, and the preset's own earlier items, added — not those
// that themselves conflicted (steps.go).

// warnVariables are the warning policy's variables after the selectors:
// held, whether each list of the pod ends with the items of the presets
// that select it (tails.go: then none conflicts), and the lists it
// compares with, tail_<list>; containers, every init container and
// container; the keys_<list><Key> and held_<list>_<n> of steps.go; and
// w<i>, one per preset.
func (c *compiler) warnVariables() ([]admissionregistrationv1.Variable, error) {
	var vars []admissionregistrationv1.Variable
	ends := make([]string, len(lists))
	for n, l := range lists {
		if len(c.items[n]) == 0 {
			continue
		}
		ends[n] = "variables.tail_" + l.field
		vars = append(vars, joinedVariables("tail_"+l.field, c.tailRuns(n, tailItems, c.matches), concat)...)
	}
	vars = append(vars,
		admissionregistrationv1.Variable{Name: "held", Expression: tailsHeld(ends, tailItems)},
		admissionregistrationv1.Variable{Name: "containers", Expression: "(has(object.spec.initContainers) ? object.spec.initContainers : []) + (has(object.spec.containers) ? object.spec.containers : [])"})
	all := make([]*steps, len(lists))
	for n, l := range lists {
		s, err := c.stepsOf(l)
		if err != nil {
			return nil, err
		}
		all[n] = s
		if len(s.steps) > 0 {
			vars = append(vars, s.keys()...)
		}
		vars = append(vars, s.variables(c)...)
	}
	for i := range c.presets {
		vars = append(vars, admissionregistrationv1.Variable{Name: fmt.Sprintf("w%d", i), Expression: presetConflicts(i, all)})
	}
	return vars, nil
}

// ProbeAnnotation, on a pod, is set by the mutating policy to the presets
// it was compiled from (PresetsAnnotation's value), and makes the warning
// policy warn with ProbeMessage and the presets it was compiled from: the
// API server compiles each written policy in its own time, and a dry-run
// pod with the annotation shows what each applies now. No other pod
// carries it.
const (
	ProbeAnnotation = "presetsim.dev/probe-compiled"
	ProbeMessage    = "presetsim: compiled from "
)

// maxGate bounds the unapplied gate's expression, well under the API
// server's 100,000 code points per expression; past it the warning policy
// has no gate (its validations decide alone, as exactly, more slowly).
const maxGate = 60000

// warnGate is a match condition that holds when the warning policy may
// have something to say: the pod is a probe, or it does not hold every
// item of the presets that select it at the ends of its lists (tails.go).
// The pod the mutating policy applied the presets to does: the API server
// then skips the validations and their messages, which it would evaluate
// for every pod otherwise. A match condition cannot read variables, so the
// selectors and the items are written out; ok is false when that is too
// long (the validations then ask held).
func (c *compiler) warnGate() (admissionregistrationv1.MatchCondition, bool) {
	expr, ok := c.gate(tailItems, func([]int) string { return quote(ProbeAnnotation) + " in m[1]" })
	if !ok {
		return admissionregistrationv1.MatchCondition{}, false
	}
	return admissionregistrationv1.MatchCondition{Name: "a-preset-may-conflict", Expression: expr}, true
}

// labelsOrNone and annotationsOrNone are the pod's labels and annotations,
// an empty map when it has none.
const (
	labelsOrNone      = "(has(object.metadata.labels) ? object.metadata.labels : {})"
	annotationsOrNone = "(has(object.metadata.annotations) ? object.metadata.annotations : {})"
)

// validations are the probe's, then one per preset, in name order.
func (c *compiler) validations(compiled string) []admissionregistrationv1.Validation {
	out := make([]admissionregistrationv1.Validation, 0, len(c.presets)+1)
	out = append(out, admissionregistrationv1.Validation{
		Expression: fmt.Sprintf("!has(object.metadata.annotations) || !(%s in object.metadata.annotations)", quote(ProbeAnnotation)),
		Message:    ProbeMessage + compiled,
	})
	for i, p := range c.presets {
		// Preset i does not select the pod, or the pod holds every item of
		// the presets that select it (so nothing conflicts): w<i> is not
		// needed. The API server evaluates every messageExpression of the
		// policy for every pod, whatever the validations come to
		// (k8s.io/apiserver v0.37.1, validating/validator.go), so the
		// message asks first too: without it, a namespace of 100 presets
		// added 8 ms to every pod create, none of them selected.
		clear := fmt.Sprintf("!%s || variables.held", c.matches(i))
		out = append(out, admissionregistrationv1.Validation{
			Expression:        fmt.Sprintf("%s || size(variables.w%d) == 0", clear, i),
			MessageExpression: fmt.Sprintf(`(%s) ? "" : %s + variables.w%d.join(%s)`, clear, quote(conflict.Prefix(p.Name)), i, quote(conflict.Separator)),
		})
	}
	return out
}

// presetConflicts is the CEL list of preset i's conflicts with the pod,
// each once, in the reference's order: its volumes, then in each init
// container and container its env, envFrom and volume mounts.
func presetConflicts(i int, all []*steps) string {
	var parts, inContainers []string
	for _, s := range all {
		terms := s.conflicts(i)
		switch {
		case len(terms) == 0:
		case s.inContainers():
			inContainers = append(inContainers, terms...)
		default:
			parts = append(parts, fmt.Sprintf("%s.transformList(ci, c, %s).flatten()", s.scope(), concat(terms, " ")))
		}
	}
	if len(inContainers) > 0 {
		// One pass over the containers for the three lists, so that in
		// each container its env, envFrom and volume mounts come in turn.
		parts = append(parts, fmt.Sprintf("variables.containers.transformList(ci, c, %s).flatten()", concat(inContainers, " ")))
	}
	return fmt.Sprintf("[%s].map(s, s.transformList(j, x, !(x in s.slice(0, j)), x))[0]", concat(parts, "\n"))
}

// conflictLabel is conflict.Item.Label of a conflict on key k of item (its
// container is appended in CEL, conflict.InContainer).
func conflictLabel(field string, k itemKey, item any) string {
	label := ""
	switch it := item.(type) {
	case corev1.EnvFromSource:
		label = merge.EnvFromLabel(&it)
	case corev1.VolumeMount:
		if k.name == byMountPath.name {
			label = "mountPath " + it.MountPath
		} else {
			label = "name " + it.Name
		}
	default:
		label = k.value(item)
	}
	return conflict.Item{Field: field, Key: label}.Label()
}

// WarningName is the name of the warning policy and of its binding for a
// namespace's presets.
func WarningName(namespace string) string { return Name(namespace) + "-conflicts" }

// WarningsOmittedAnnotation, on a warning policy, says why it warns of
// nothing but the probe.
const WarningsOmittedAnnotation = "presetsim.dev/warnings-omitted"

// maxWarningBytes bounds the warning policy as JSON: an API server stores
// objects of up to about 1.5 MiB (etcd's request limit). Its per-preset
// lists take about 1.7 KB for a preset of three items, so a namespace of
// about 600 such presets reaches it.
const maxWarningBytes = 1 << 20

// fit leaves the warning policy with its probe validation alone when it
// would exceed maxWarningBytes: the namespace's conflicts are then not
// warned of (its pods are still admitted as the specification says), and
// the policy's annotation says why.
func fit(p *admissionregistrationv1.ValidatingAdmissionPolicy) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if len(data) <= maxWarningBytes {
		return nil
	}
	p.Annotations[WarningsOmittedAnnotation] = fmt.Sprintf("the conflict warnings of %d presets would take %d bytes, more than the %d a policy may take here", len(p.Spec.Validations)-1, len(data), maxWarningBytes)
	p.Spec.Variables, p.Spec.Validations = nil, p.Spec.Validations[:1]
	return nil
}
