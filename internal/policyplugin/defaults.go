package policyplugin

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultPolicy gives a policy or binding the defaults the API server gives
// it when it is written (kubernetes pkg/apis/admissionregistration/v1,
// SetDefaults_*: failure policy Fail, match policy Equivalent, empty
// namespace and object selectors, rule scope "*"); the plug-ins refuse a
// nil selector.
func defaultPolicy(obj runtime.Object) {
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingAdmissionPolicy:
		if o.Spec.FailurePolicy == nil {
			o.Spec.FailurePolicy = ptr(admissionregistrationv1.Fail)
		}
		defaultMatch(o.Spec.MatchConstraints)
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		if o.Spec.FailurePolicy == nil {
			o.Spec.FailurePolicy = ptr(admissionregistrationv1.Fail)
		}
		defaultMatch(o.Spec.MatchConstraints)
	case *admissionregistrationv1.MutatingAdmissionPolicyBinding:
		defaultMatch(o.Spec.MatchResources)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		defaultMatch(o.Spec.MatchResources)
	}
}

func defaultMatch(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr(admissionregistrationv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				rules[i].Scope = ptr(admissionregistrationv1.AllScopes)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }
