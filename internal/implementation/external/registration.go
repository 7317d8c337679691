package external

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/manifest"
)

// ReadRegistration reads the implementation's own
// MutatingWebhookConfiguration, as it ships, from a file: the file may hold
// other objects too (a bundle of manifests), which are left out; it must
// hold exactly one MutatingWebhookConfiguration of
// admissionregistration.k8s.io/v1. Errors name the file and line.
func ReadRegistration(path string) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseRegistration(path, data)
}

// ParseRegistration is ReadRegistration of a file's content; path names
// it in errors.
func ParseRegistration(path string, data []byte) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	scheme := runtime.NewScheme()
	if err := admissionregistrationv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	var found []*admissionregistrationv1.MutatingWebhookConfiguration
	for _, doc := range documents(string(data)) {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc.content), &head); err != nil || head.Kind != "MutatingWebhookConfiguration" {
			continue // another object of the bundle, or what the decoder below would not read either
		}
		if head.APIVersion == "admissionregistration.k8s.io/v1beta1" {
			// Kubernetes stopped serving v1beta1 in 1.22; its defaults
			// (failurePolicy Ignore, sideEffects Unknown, which v1
			// refuses, review versions [v1beta1]) are the author's to
			// carry over, not the harness's to guess.
			return nil, fmt.Errorf("%s:%d: MutatingWebhookConfiguration of admissionregistration.k8s.io/v1beta1, which API servers no longer serve (since Kubernetes 1.22): write it as v1 as you would deploy it today (v1beta1's defaults were failurePolicy: Ignore, admissionReviewVersions: [v1beta1], and sideEffects: Unknown, which v1 refuses)", path, doc.line)
		}
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		if err := manifest.DecodeInto(manifest.Source{File: path, Line: doc.line}, doc.content, scheme, cfg); err != nil {
			return nil, err
		}
		found = append(found, cfg)
	}
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("%s: no MutatingWebhookConfiguration (admissionregistration.k8s.io/v1) in the file", path)
	case len(found) > 1:
		return nil, fmt.Errorf("%s: %d MutatingWebhookConfigurations: give the one the implementation ships for pods", path, len(found))
	case len(found[0].Webhooks) == 0:
		return nil, fmt.Errorf("%s: MutatingWebhookConfiguration %s has no webhooks", path, found[0].Name)
	}
	return found[0], nil
}

// document is one YAML document of a file and the line it starts on.
type document struct {
	content string
	line    int
}

// documents splits a YAML stream at its "---" lines.
func documents(data string) []document {
	var out []document
	start, lines := 1, []string{}
	flush := func(next int) {
		if content := strings.Join(lines, "\n"); strings.TrimSpace(content) != "" {
			out = append(out, document{content: content + "\n", line: start})
		}
		start, lines = next, nil
	}
	for i, l := range strings.Split(data, "\n") {
		if strings.HasPrefix(l, "---") && strings.TrimSpace(strings.TrimPrefix(l, "---")) == "" {
			flush(i + 2)
			continue
		}
		lines = append(lines, l)
	}
	flush(0)
	return out
}

// asDeployed is the implementation's own registration made to call
// endpoint (the webhook's URL, or the relay's in front of it) with
// caBundle: for each webhook, the scheme, host and port of endpoint, the
// path its registration gives (its service's, or its URL's), else
// endpoint's; and its namespaceSelector narrowed to the run's namespaces,
// so that it sees nothing else of a shared cluster. Everything else —
// rules, objectSelector, matchConditions, failurePolicy, reinvocation,
// timeouts, review versions — is as it ships.
func asDeployed(reg *admissionregistrationv1.MutatingWebhookConfiguration, endpoint string, caBundle []byte, namespaces *metav1.LabelSelector) (*admissionregistrationv1.MutatingWebhookConfiguration, error) {
	base, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	out := reg.DeepCopy()
	out.ObjectMeta = metav1.ObjectMeta{Name: reg.Name}
	for i := range out.Webhooks {
		w := &out.Webhooks[i]
		u := *base
		switch cc := w.ClientConfig; {
		case cc.Service != nil && cc.Service.Path != nil && *cc.Service.Path != "":
			u.Path = *cc.Service.Path
		case cc.URL != nil:
			if own, err := url.Parse(*cc.URL); err == nil && own.Path != "" {
				u.Path = own.Path
			}
		}
		raw := u.String()
		w.ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &raw, CABundle: caBundle}
		w.NamespaceSelector = both(w.NamespaceSelector, namespaces)
	}
	return out, nil
}

// both is a selector that selects what a and b both select.
func both(a, b *metav1.LabelSelector) *metav1.LabelSelector {
	if a == nil {
		return b.DeepCopy()
	}
	out := a.DeepCopy()
	if b == nil {
		return out
	}
	for k, v := range b.MatchLabels {
		if out.MatchLabels == nil {
			out.MatchLabels = map[string]string{}
		}
		if have, ok := out.MatchLabels[k]; ok && have != v {
			// Both cannot hold: an expression that says so.
			out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{v}})
			continue
		}
		out.MatchLabels[k] = v
	}
	out.MatchExpressions = append(out.MatchExpressions, b.MatchExpressions...)
	return out
}

// RegistrationFindings are what a registration does against R5.4 of the
// specification: an implementation must be sent CREATE of pods in every
// namespace where presets may exist, whatever else it is sent, unless the
// profile (p, which may be nil) declares a narrower deployment: a
// namespaceSelector that the namespaces labelled as the profile's
// namespaceLabels say match is declared (DeclaredNarrowing), not found.
func RegistrationFindings(reg *admissionregistrationv1.MutatingWebhookConfiguration, p *profile.Profile) []string {
	var out []string
	var createsPods []admissionregistrationv1.MutatingWebhook
	for _, w := range reg.Webhooks {
		if slices.ContainsFunc(w.Rules, podCreate) {
			createsPods = append(createsPods, w)
		}
	}
	if len(createsPods) == 0 {
		return []string{"R5.4: no webhook of the registration is sent CREATE of pods"}
	}
	for _, w := range createsPods {
		if s := w.NamespaceSelector; narrows(s) && !declaredFor(s, p) {
			out = append(out, fmt.Sprintf("R5.4: webhook %s is sent the pods of the namespaces %s only, not of every namespace where presets may exist", w.Name, metav1.FormatLabelSelector(s)))
		}
		if s := w.ObjectSelector; narrows(s) {
			out = append(out, fmt.Sprintf("R5.4: webhook %s is sent only the pods labelled %s: a preset cannot select the others", w.Name, metav1.FormatLabelSelector(s)))
		}
		if len(w.MatchConditions) > 0 {
			out = append(out, fmt.Sprintf("R5.4: webhook %s is sent only the pods its %d matchConditions let through", w.Name, len(w.MatchConditions)))
		}
	}
	return out
}

// DeclaredNarrowing are the namespaceSelectors of the registration's pod
// webhooks that the profile declares (its namespaceLabels satisfy them),
// as sentences: differences from R5.4 by design, stated once.
func DeclaredNarrowing(reg *admissionregistrationv1.MutatingWebhookConfiguration, p *profile.Profile) []string {
	var out []string
	for _, w := range reg.Webhooks {
		if s := w.NamespaceSelector; slices.ContainsFunc(w.Rules, podCreate) && narrows(s) && declaredFor(s, p) {
			out = append(out, fmt.Sprintf("R5.4: webhook %s is sent the pods of the namespaces %s only, as the profile's namespaceLabels (%s) declare; the run's namespaces carry them",
				w.Name, metav1.FormatLabelSelector(s), labels.Set(p.Spec.NamespaceLabels)))
		}
	}
	return out
}

// narrows reports whether a selector selects less than everything.
func narrows(s *metav1.LabelSelector) bool {
	return s != nil && (len(s.MatchLabels) > 0 || len(s.MatchExpressions) > 0)
}

// declaredFor reports whether the profile declares namespace labels that
// the selector selects.
func declaredFor(s *metav1.LabelSelector, p *profile.Profile) bool {
	if p == nil || len(p.Spec.NamespaceLabels) == 0 {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	return err == nil && sel.Matches(labels.Set(p.Spec.NamespaceLabels))
}

// podCreate reports whether a rule sends CREATE of core pods.
func podCreate(r admissionregistrationv1.RuleWithOperations) bool {
	has := func(list []string, want string) bool {
		return slices.Contains(list, want) || slices.Contains(list, "*")
	}
	ops := slices.ContainsFunc(r.Operations, func(o admissionregistrationv1.OperationType) bool {
		return o == admissionregistrationv1.Create || o == admissionregistrationv1.OperationAll
	})
	resources := slices.ContainsFunc(r.Resources, func(res string) bool { return res == "pods" || res == "*" || res == "*/*" })
	return ops && resources && has(r.APIGroups, "") && has(r.APIVersions, "v1") &&
		(r.Scope == nil || *r.Scope != admissionregistrationv1.ClusterScope)
}

// Describe says in one line per webhook what a registration sends it.
func Describe(reg *admissionregistrationv1.MutatingWebhookConfiguration) []string {
	var out []string
	for _, w := range reg.Webhooks {
		var rules []string
		for _, r := range w.Rules {
			var ops []string
			for _, o := range r.Operations {
				ops = append(ops, string(o))
			}
			rules = append(rules, strings.Join(ops, "/")+" "+strings.Join(r.Resources, ","))
		}
		fail, reinvoke := "Fail", "Never"
		if w.FailurePolicy != nil {
			fail = string(*w.FailurePolicy)
		}
		if w.ReinvocationPolicy != nil {
			reinvoke = string(*w.ReinvocationPolicy)
		}
		out = append(out, fmt.Sprintf("%s: %s; failurePolicy %s, reinvocationPolicy %s", w.Name, strings.Join(rules, "; "), fail, reinvoke))
	}
	return out
}
