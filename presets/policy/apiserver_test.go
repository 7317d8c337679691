package policy_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/mutation"
	"k8s.io/client-go/kubernetes/scheme"
)

// evaluator runs a compiled policy's match conditions, variables and
// JSONPatch mutation on a pod with the API server's own CEL pieces
// (k8s.io/apiserver: the composited compiler, its environment of the pinned
// version, the JSON patcher and its cost limits), as the mutating-policy
// dispatcher does once the binding has selected the pod's namespace. It
// does not default the patched pod (the dispatcher does). It measures what the
// policy costs per pod, in time and in CEL cost, without an API server.
type evaluator struct {
	compiler   *plugincel.CompositedCompiler
	conditions plugincel.ConditionEvaluator
	patchers   []patch.Patcher
	mutations  []plugincel.MutatingEvaluator // the patchers' own, for patchValues
}

func newEvaluator(t testing.TB, pol *admissionregistrationv1.MutatingAdmissionPolicy) *evaluator {
	t.Helper()
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	vars := make([]plugincel.NamedExpressionAccessor, len(pol.Spec.Variables))
	for i, v := range pol.Spec.Variables {
		vars[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	compiler.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)
	opts.HasPatchTypes = true
	e := &evaluator{compiler: compiler}
	conds := make([]plugincel.ExpressionAccessor, len(pol.Spec.MatchConditions))
	for i := range pol.Spec.MatchConditions {
		conds[i] = (*matchconditions.MatchCondition)(&pol.Spec.MatchConditions[i])
	}
	e.conditions = compiler.CompileCondition(conds, opts, environment.StoredExpressions)
	for _, m := range pol.Spec.Mutations {
		ev := compiler.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, opts, environment.StoredExpressions)
		if errs := ev.CompilationErrors(); len(errs) > 0 {
			t.Fatalf("the mutation does not compile: %v", errs)
		}
		e.patchers = append(e.patchers, patch.NewJSONPatcher(ev))
		e.mutations = append(e.mutations, ev)
	}
	return e
}

// matches evaluates the policy's match conditions on the pod, as the
// dispatcher does before anything else: false when one is false.
func (e *evaluator) matches(ctx context.Context, pod *corev1.Pod) (bool, error) {
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	gvr := corev1.SchemeGroupVersion.WithResource("pods")
	attrs := admission.NewAttributesRecord(pod, nil, gvk, pod.Namespace, pod.Name, gvr, "", admission.Create, &metav1.CreateOptions{}, false, nil)
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(pod)}
	results, _, err := e.conditions.ForInput(ctx, versioned, plugincel.CreateAdmissionRequest(attrs, metav1.GroupVersionResource(gvr), metav1.GroupVersionKind(gvk)),
		plugincel.OptionalVariableBindings{}, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
	if err != nil {
		return false, err
	}
	for _, r := range results {
		if r.Error != nil {
			return false, r.Error
		}
		if r.EvalResult != types.True {
			return false, nil
		}
	}
	return true, nil
}

// compileConditions compiles match conditions as the API server does and
// returns its errors.
func compileConditions(t testing.TB, conds []admissionregistrationv1.MatchCondition) []error {
	t.Helper()
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	accessors := make([]plugincel.ExpressionAccessor, len(conds))
	for i := range conds {
		accessors[i] = (*matchconditions.MatchCondition)(&conds[i])
	}
	return compiler.CompileCondition(accessors, plugincel.OptionalVariableDeclarations{HasAuthorizer: true}, environment.StoredExpressions).CompilationErrors()
}

// admit returns the pod as the policy makes it, or the error the API
// server would refuse it with (a CEL cost limit, a patch that fails).
func (e *evaluator) admit(ctx context.Context, pod *corev1.Pod) (*corev1.Pod, error) {
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	gvr := corev1.SchemeGroupVersion.WithResource("pods")
	var obj runtime.Object = pod
	// As the dispatcher does: the variables are evaluated once per
	// request, lazily, in this context.
	ctx = e.compiler.CreateContext(ctx)
	if match, err := e.matches(ctx, pod); err != nil || !match {
		return pod, err
	}
	for _, p := range e.patchers {
		attrs := admission.NewAttributesRecord(obj, nil, gvk, pod.Namespace, pod.Name, gvr, "", admission.Create, &metav1.CreateOptions{}, false, nil)
		got, err := p.Patch(ctx, patch.Request{
			MatchedResource:     gvr,
			VersionedAttributes: &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(obj)},
			ObjectInterfaces:    admission.NewObjectInterfacesFromScheme(scheme.Scheme),
			Namespace:           &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: pod.Namespace}},
		}, celconfig.RuntimeCELCostBudget)
		if err != nil {
			return nil, err
		}
		obj = got
	}
	out, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("the patcher returned a %T", obj)
	}
	return out, nil
}

// patchValues are the values of the JSON patch operations the policy's
// mutations make of the pod, as CEL values: what the API server's JSON
// patcher turns into JSON (patch/json_patch.go) before it applies them.
func (e *evaluator) patchValues(ctx context.Context, pod *corev1.Pod) ([]ref.Val, error) {
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	gvr := corev1.SchemeGroupVersion.WithResource("pods")
	ctx = e.compiler.CreateContext(ctx)
	attrs := admission.NewAttributesRecord(pod, nil, gvk, pod.Namespace, pod.Name, gvr, "", admission.Create, &metav1.CreateOptions{}, false, nil)
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: admission.NewLazyObject(pod)}
	var out []ref.Val
	for _, m := range e.mutations {
		eval, _, err := m.ForInput(ctx, versioned, plugincel.CreateAdmissionRequest(attrs, metav1.GroupVersionResource(gvr), metav1.GroupVersionKind(gvk)),
			plugincel.OptionalVariableBindings{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: pod.Namespace}}, celconfig.RuntimeCELCostBudget)
		if err != nil {
			return nil, err
		}
		if eval.Error != nil {
			return nil, eval.Error
		}
		ops, ok := eval.EvalResult.(traits.Lister)
		if !ok {
			return nil, fmt.Errorf("the patch is a %T, not a list", eval.EvalResult)
		}
		for it := ops.Iterator(); it.HasNext() == types.True; {
			native, err := it.Next().ConvertToNative(reflect.TypeFor[*mutation.JSONPatchVal]())
			if err != nil {
				return nil, err
			}
			if op := native.(*mutation.JSONPatchVal); op.Val != nil {
				out = append(out, op.Val)
			}
		}
	}
	return out, nil
}
