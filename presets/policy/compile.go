package policy

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/defaults"
	"presetsim.dev/presetsim/presets/merge"
)

// ManagedByLabel marks the objects Compile writes, with ManagedBy as value.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "presetsim"
)

// PresetsAnnotation, on the policy, lists the presets compiled into it as
// "name=resourceVersion" pairs, comma-separated, in name order: what a
// controller compares to know whether the policy is current.
const PresetsAnnotation = "presetsim.dev/presets"

// Objects are what implements the presets of one namespace in the API
// server: a policy and the binding that applies it to that namespace.
type Objects struct {
	Policy  *admissionregistrationv1.MutatingAdmissionPolicy
	Binding *admissionregistrationv1.MutatingAdmissionPolicyBinding
}

// Options are the choices Compile leaves to its caller.
type Options struct {
	// FailurePolicy is what the API server does when the policy cannot be
	// evaluated (a CEL cost limit, a misconfiguration): Fail (the pod is
	// refused) when empty, as for the reference webhook (R5.2).
	FailurePolicy admissionregistrationv1.FailurePolicyType
}

// Name is the name of the policy and of the binding for a namespace's
// presets.
func Name(namespace string) string { return "podpresets-" + namespace }

// Compile returns the policy and binding that apply the presets, all of
// namespace, to the pods created there, as the reference does: selected by
// label (R2.3), never an excluded or a mirror pod (R2.4, R2.5), items
// appended to every container and init container (R3.1–R3.3), identical
// items skipped (R3.4), presets in name order (R3.6), one annotation per
// applied preset (R3.7), and nothing at all when any matching preset
// conflicts with the pod or with another matching preset (R4.1, R4.2).
//
// The presets are inlined, defaulted as the API server defaults a pod's
// items (package defaults), so that the policy compares them with the pod's
// as the reference does. What is known before any pod exists is decided
// here, with the reference merge engine: which presets conflict with each
// other, and which of a later preset's items an earlier one already adds.
// What depends on the pod (its labels, its items) is left to CEL.
//
// With no presets there is nothing to enforce: Compile returns zero
// Objects, and the caller deletes any it created before.
func Compile(namespace string, presets []*v1alpha1.PodPreset, o Options) (Objects, error) {
	if len(presets) == 0 {
		return Objects{}, nil
	}
	sorted := make([]*v1alpha1.PodPreset, 0, len(presets))
	for _, p := range presets {
		if p.Namespace != namespace {
			return Objects{}, fmt.Errorf("pod preset %s/%s is not in namespace %s", p.Namespace, p.Name, namespace)
		}
		sorted = append(sorted, defaults.Preset(p))
	}
	// R3.6: by name, in byte order.
	slices.SortFunc(sorted, func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })

	c := compiler{presets: sorted}
	vars, err := c.variables()
	if err != nil {
		return Objects{}, err
	}
	failure := o.FailurePolicy
	if failure == "" {
		failure = admissionregistrationv1.Fail
	}
	name := Name(namespace)
	var compiled []string
	for _, p := range sorted {
		compiled = append(compiled, p.Name+"="+p.ResourceVersion)
	}
	pol := &admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ManagedByLabel: ManagedBy},
			Annotations: map[string]string{PresetsAnnotation: strings.Join(compiled, ",")}},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			// R2.1: CREATE of core pods; no subresource is named, so none
			// matches. Server-side dry-run requests are admitted alike.
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
						},
					},
				}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{
				// R2.4: exactly the string "true".
				{Name: "not-excluded", Expression: fmt.Sprintf(
					"!has(object.metadata.annotations) || !(%[1]s in object.metadata.annotations) || object.metadata.annotations[%[1]s] != \"true\"",
					quote(merge.ExcludeAnnotation))},
				// R2.5: a mirror pod carries the annotation, whatever its value.
				{Name: "not-a-mirror-pod", Expression: fmt.Sprintf(
					"!has(object.metadata.annotations) || !(%s in object.metadata.annotations)", quote(corev1.MirrorPodAnnotationKey))},
			},
			Variables:     vars,
			Mutations:     []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: c.patch()}}},
			FailurePolicy: &failure,
			// R3.8: admitting the result again changes nothing, so the
			// policy may run again after a webhook changed the pod.
			ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
		},
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ManagedByLabel: ManagedBy}},
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName: name,
			// R2.2: the presets of a namespace, for the pods of that
			// namespace only.
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: namespace}},
			},
		},
	}
	return Objects{Policy: pol, Binding: binding}, nil
}

// compiler writes the CEL of one namespace's presets, sorted and defaulted.
type compiler struct {
	presets []*v1alpha1.PodPreset
}

// matches is the variable that says whether preset i selects the pod.
func (c *compiler) matches(i int) string { return fmt.Sprintf("variables.p%d", i) }

// lists are the four lists a preset injects: the pod's volumes and each
// container's env, envFrom and volumeMounts.
var lists = []struct {
	field string
	items func(*v1alpha1.PodPreset) []any
	// key is a CEL expression that is true when two items (a from the pod,
	// b from a preset) share a key (R3.5).
	key string
}{
	{"volumes", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.Volumes) }, "a.name == b.name"},
	{"env", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.Env) }, "a.name == b.name"},
	{"envFrom", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.EnvFrom) },
		`(has(a.prefix) ? a.prefix : "") == (has(b.prefix) ? b.prefix : "") && ` +
			`(has(a.configMapRef) && has(a.configMapRef.name) ? a.configMapRef.name : "") == (has(b.configMapRef) && has(b.configMapRef.name) ? b.configMapRef.name : "") && ` +
			`(has(a.secretRef) && has(a.secretRef.name) ? a.secretRef.name : "") == (has(b.secretRef) && has(b.secretRef.name) ? b.secretRef.name : "")`},
	{"volumeMounts", func(p *v1alpha1.PodPreset) []any { return anys(p.Spec.VolumeMounts) }, "(a.name == b.name || a.mountPath == b.mountPath)"},
}

func anys[T any](items []T) []any {
	out := make([]any, len(items))
	for i := range items {
		out[i] = items[i]
	}
	return out
}

// variables are, in order: the pod's labels; p<i>, whether preset i
// selects the pod; per list, the items the matching presets add, in
// order; conflict; matched.
func (c *compiler) variables() ([]admissionregistrationv1.Variable, error) {
	vars := []admissionregistrationv1.Variable{
		{Name: "labels", Expression: "has(object.metadata.labels) ? object.metadata.labels : {}"},
	}
	for i, p := range c.presets {
		sel, err := selector(p.Spec.Selector, "variables.labels")
		if err != nil {
			return nil, fmt.Errorf("pod preset %s/%s has an invalid selector: %w", p.Namespace, p.Name, err)
		}
		vars = append(vars, admissionregistrationv1.Variable{Name: fmt.Sprintf("p%d", i), Expression: sel})
	}
	for _, l := range lists {
		expr, err := c.items(l.items)
		if err != nil {
			return nil, err
		}
		vars = append(vars, admissionregistrationv1.Variable{Name: l.field, Expression: expr})
	}
	vars = append(vars,
		admissionregistrationv1.Variable{Name: "conflict", Expression: c.conflict()},
		admissionregistrationv1.Variable{Name: "matched", Expression: c.matched()},
	)
	return vars, nil
}

// items is the list of one kind of item that the matching presets add, in
// preset order, each preset's in its own order (R3.3). An item identical to
// one an earlier preset adds is there only when that preset does not match
// (R3.4 between presets); an item identical to an earlier one of its own
// preset is not there at all. The list is dyn, so that its maps compare
// with the pod's typed items.
func (c *compiler) items(of func(*v1alpha1.PodPreset) []any) (string, error) {
	var groups []string
	for i, p := range c.presets {
		var (
			cond    string
			pending []string
		)
		flush := func() {
			if len(pending) > 0 {
				groups = append(groups, fmt.Sprintf("(%s ? [%s] : [])", cond, strings.Join(pending, ", ")))
				pending = nil
			}
		}
		own := of(p)
		for j, item := range own {
			if slices.ContainsFunc(own[:j], func(earlier any) bool { return equality.Semantic.DeepEqual(earlier, item) }) {
				continue
			}
			terms := []string{c.matches(i)}
			for k := range i {
				if slices.ContainsFunc(of(c.presets[k]), func(earlier any) bool { return equality.Semantic.DeepEqual(earlier, item) }) {
					terms = append(terms, "!"+c.matches(k))
				}
			}
			lit, err := literal(item)
			lit = "dyn(" + lit + ")"
			if err != nil {
				return "", fmt.Errorf("pod preset %s/%s: %w", p.Namespace, p.Name, err)
			}
			if next := strings.Join(terms, " && "); next != cond {
				flush()
				cond = next
			}
			pending = append(pending, lit)
		}
		flush()
	}
	if len(groups) == 0 {
		return "dyn([])", nil
	}
	return "dyn(" + concat(groups, " ") + ")", nil
}

// conflict is true when a matching preset conflicts (R4.1): with another
// matching preset, or itself (decided here, by the reference merge engine,
// on a pod with one empty container), or with an item of the pod (in CEL).
func (c *compiler) conflict() string {
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
	for _, l := range lists {
		clash := fmt.Sprintf("variables.%[1]s.exists(b, HAS.%[1]s.exists(a, (%[2]s) && a != b))", l.field, l.key)
		if l.field == "volumes" {
			terms = append(terms, "(has(object.spec.volumes) && "+strings.ReplaceAll(clash, "HAS", "object.spec")+")")
			continue
		}
		for _, containers := range []string{"initContainers", "containers"} {
			terms = append(terms, fmt.Sprintf("(has(object.spec.%[1]s) && object.spec.%[1]s.exists(c, has(c.%[2]s) && %[3]s))",
				containers, l.field, strings.ReplaceAll(clash, "HAS", "c")))
		}
	}
	return anyOf(terms, "\n")
}

// probePod is a pod with one container and nothing else: merging presets
// into it shows the conflicts they have among themselves.
func probePod() *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "probe"}}}}
}

// matched is true when any preset selects the pod.
func (c *compiler) matched() string {
	terms := make([]string, len(c.presets))
	for i := range c.presets {
		terms[i] = c.matches(i)
	}
	return anyOf(terms, " ")
}

// patch is the JSONPatch expression: nothing when no preset matches or one
// conflicts (R4.2, R4.4); otherwise the annotations (R3.7), then, for each
// list, the items it lacks appended (R3.3), or the list added when the pod
// has none: an item with the key of one the list has is identical to it,
// as there is no conflict (R3.4). Items are appended one patch each: the
// pod's own items are typed values that a patch's value cannot hold.
func (c *compiler) patch() string {
	parts := []string{`(has(object.metadata.annotations) ? [] : [JSONPatch{op: "add", path: "/metadata/annotations", value: {}}])`}
	for i, p := range c.presets {
		parts = append(parts, fmt.Sprintf(`(%s ? [JSONPatch{op: "add", path: %s, value: %s}] : [])`,
			c.matches(i), quote("/metadata/annotations/"+escapeKey(merge.AnnotationKey(p.Name))), quote(p.ResourceVersion)))
	}
	// appendTo writes the patches that add the items of variables.<field>
	// that list (a CEL expression, at path) lacks.
	appendTo := func(list, path, field, key string) string {
		return fmt.Sprintf(`(has(%[1]s) ? variables.%[3]s.filter(b, !%[1]s.exists(a, %[4]s)).map(b, JSONPatch{op: "add", path: %[2]s + "/-", value: b}) : `+
			`size(variables.%[3]s) == 0 ? [] : [JSONPatch{op: "add", path: %[2]s, value: variables.%[3]s}])`, list, path, field, key)
	}
	for _, l := range lists {
		if l.field == "volumes" {
			parts = append(parts, appendTo("object.spec.volumes", `"/spec/volumes"`, l.field, l.key))
			continue
		}
		for _, containers := range []string{"initContainers", "containers"} {
			parts = append(parts, fmt.Sprintf(`(has(object.spec.%[1]s) ? object.spec.%[1]s.transformList(i, c, %[2]s).flatten() : [])`,
				containers, appendTo("c."+l.field, fmt.Sprintf(`"/spec/%s/" + string(i) + "/%s"`, containers, l.field), l.field, l.key)))
		}
	}
	return "variables.conflict || !variables.matched ? [] : " + concat(parts, "\n")
}

// escapeKey escapes a JSON pointer token (RFC 6901): ~ as ~0, / as ~1.
func escapeKey(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// concat is the concatenation of lists, and anyOf the disjunction of
// booleans, written as one list literal rather than a chain of + or ||:
// CEL's parser refuses a chain of a few hundred operators (max recursion
// depth exceeded), and a namespace may hold hundreds of presets.
func concat(lists []string, sep string) string {
	if len(lists) == 1 {
		return lists[0]
	}
	return "[" + sep + strings.Join(lists, ","+sep) + "].flatten()"
}

func anyOf(terms []string, sep string) string {
	if len(terms) == 1 {
		return terms[0]
	}
	return "[" + sep + strings.Join(terms, ","+sep) + "].exists(t, t)"
}
