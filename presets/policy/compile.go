package policy

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
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
	// Warning returns the conflict warnings (R4.3), with its binding
	// (validationActions [Warn]); see warn.go.
	Warning        *admissionregistrationv1.ValidatingAdmissionPolicy
	WarningBinding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// All are the objects, the policies before their bindings (a binding to a
// policy not yet there is ignored).
func (o Objects) All() []runtime.Object {
	if o.Policy == nil {
		return nil
	}
	return []runtime.Object{o.Policy, o.Binding, o.Warning, o.WarningBinding}
}

// Options are the choices Compile leaves to its caller.
type Options struct {
	// FailurePolicy is what the API server does when the policy cannot be
	// evaluated (a CEL cost limit, a misconfiguration): Fail (the pod is
	// refused) when empty, as for the reference webhook (R5.2).
	FailurePolicy admissionregistrationv1.FailurePolicyType
	// Reinvocation is the policy's reinvocationPolicy: IfNeeded when
	// empty, as for the reference webhook (R5.1), so that presets reach
	// the containers a later webhook adds (a sidecar injector's). It
	// costs a second evaluation on every pod the policy changes: the API
	// server reinvokes an IfNeeded policy after its own change, even when
	// nothing ran after it (docs/policy.md). Never spares that.
	Reinvocation admissionregistrationv1.ReinvocationPolicyType
}

// Name is the name of the policy and of the binding for a namespace's
// presets.
func Name(namespace string) string { return "podpresets-" + namespace }

// versions are the presets as PresetsAnnotation gives them, in name order.
func versions(presets []*v1alpha1.PodPreset) string {
	sorted := slices.SortedFunc(slices.Values(presets), func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })
	pairs := make([]string, 0, len(sorted))
	for _, p := range sorted {
		pairs = append(pairs, p.Name+"="+p.ResourceVersion)
	}
	return strings.Join(pairs, ",")
}

// Compile returns the policy and binding that apply the presets, all of
// namespace (and the warning policy and its binding, warn.go), to the pods
// created there, as the reference does: selected by
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
	reinvocation := o.Reinvocation
	if reinvocation == "" {
		reinvocation = admissionregistrationv1.IfNeededReinvocationPolicy
	}
	name := Name(namespace)
	compiled := versions(sorted)
	pol := &admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ManagedByLabel: ManagedBy},
			Annotations: map[string]string{PresetsAnnotation: compiled}},
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
			Mutations:     []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch, JSONPatch: &admissionregistrationv1.JSONPatch{Expression: c.patch(compiled, c.adds)}}},
			FailurePolicy: &failure,
			// R3.8: admitting the result again changes nothing, so the
			// policy may run again after a webhook changed the pod.
			ReinvocationPolicy: reinvocation,
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
	warnVars, err := c.warnVariables()
	if err != nil {
		return Objects{}, err
	}
	ignore := admissionregistrationv1.Ignore
	warnName := WarningName(namespace)
	warning := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: warnName, Labels: map[string]string{ManagedByLabel: ManagedBy},
			Annotations: map[string]string{PresetsAnnotation: compiled}},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: pol.Spec.MatchConstraints.DeepCopy(),
			MatchConditions:  slices.Clone(pol.Spec.MatchConditions),
			Variables:        append(slices.Clone(vars[:c.selectors]), warnVars...),
			Validations:      c.validations(compiled),
			// A warning never refuses a pod: what cannot be evaluated
			// (a cost limit) is skipped.
			FailurePolicy: &ignore,
		},
	}
	if gate, ok := c.warnGate(); ok {
		warning.Spec.MatchConditions = append(warning.Spec.MatchConditions, gate)
	}
	if err := fit(warning); err != nil {
		return Objects{}, err
	}
	warningBinding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: admissionregistrationv1.SchemeGroupVersion.String(), Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: warnName, Labels: map[string]string{ManagedByLabel: ManagedBy}},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        warnName,
			MatchResources:    binding.Spec.MatchResources.DeepCopy(),
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn},
		},
	}
	// Only the mutating policy is reinvoked (appliedCondition).
	if reinvocation == admissionregistrationv1.IfNeededReinvocationPolicy {
		if skip, ok := c.appliedCondition(); ok {
			pol.Spec.MatchConditions = append(pol.Spec.MatchConditions, skip)
		}
	}
	return Objects{Policy: pol, Binding: binding, Warning: warning, WarningBinding: warningBinding}, nil
}
