package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// Unsubscribed are the OtherRequests that no webhook of reg is sent by its
// rules: what the harness's webhook of other requests sends an
// implementation registered as it ships, so that a request its own
// registration sends reaches it once, as deployed, and is judged as any
// other, while one it does not send is only looked at (a finding). Only
// rules are compared: a request a rule sends and a selector then leaves
// out is neither sent nor looked at.
func Unsubscribed(reg *admissionregistrationv1.MutatingWebhookConfiguration) []admissionregistrationv1.RuleWithOperations {
	var out []admissionregistrationv1.RuleWithOperations
	for _, other := range OtherRequests {
		if !slices.ContainsFunc(reg.Webhooks, func(w admissionregistrationv1.MutatingWebhook) bool {
			return slices.ContainsFunc(w.Rules, func(r admissionregistrationv1.RuleWithOperations) bool { return covers(r, other) })
		}) {
			out = append(out, other)
		}
	}
	return out
}

// covers reports whether rule r sends every request of other, a rule of
// one operation, group, version and resource (as OtherRequests are).
func covers(r, other admissionregistrationv1.RuleWithOperations) bool {
	has := func(list []string, want string) bool {
		return slices.Contains(list, want) || slices.Contains(list, "*")
	}
	op := other.Operations[0]
	resource := other.Resources[0]
	base, sub, _ := strings.Cut(resource, "/")
	resourceOK := slices.ContainsFunc(r.Resources, func(res string) bool {
		switch {
		case res == resource || res == "*/*":
			return true
		case res == "*":
			return sub == ""
		case sub != "":
			return res == base+"/*" || res == "*/"+sub
		}
		return false
	})
	opOK := slices.Contains(r.Operations, op) || slices.Contains(r.Operations, admissionregistrationv1.OperationAll)
	scopeOK := r.Scope == nil || *r.Scope != admissionregistrationv1.ClusterScope
	return opOK && resourceOK && scopeOK && has(r.APIGroups, other.APIGroups[0]) && has(r.APIVersions, other.APIVersions[0])
}

// MaxFindings bounds the findings Findings keeps per namespace.
const MaxFindings = 200

// Findings are what an implementation did with the requests its
// registration does not send it (outcome.Finding), by the request's
// namespace. The zero value is ready; it is safe for concurrent use.
type Findings struct{ by byNamespace[outcome.Finding] }

// Note records a finding, past MaxFindings in its namespace not.
func (f *Findings) Note(namespace string, finding outcome.Finding) {
	f.by.note(namespace, finding, MaxFindings)
}

// FindingsIn are the findings of a namespace, in the order noted
// (backend.Findings).
func (f *Findings) FindingsIn(namespace string) []outcome.Finding { return f.by.in(namespace) }

// WireReview is what the harness reads of an AdmissionReview of either
// version (admission.k8s.io/v1 and v1beta1 have the same shape), request
// or answer.
type WireReview struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    struct {
		UID         string                `json:"uid"`
		Kind        struct{ Kind string } `json:"kind"`
		Name        string                `json:"name"`
		Namespace   string                `json:"namespace"`
		Operation   string                `json:"operation"`
		SubResource string                `json:"subResource"`
		DryRun      *bool                 `json:"dryRun"`
		Object      json.RawMessage       `json:"object"`
	} `json:"request"`
	Response *struct {
		UID       string  `json:"uid"`
		Allowed   bool    `json:"allowed"`
		Patch     []byte  `json:"patch"`
		PatchType *string `json:"patchType"`
		Result    *struct {
			Message string `json:"message"`
		} `json:"status"`
	} `json:"response"`
}

// ReadWireReview reads a review; what cannot be read stays empty.
func ReadWireReview(body []byte) WireReview {
	var rv WireReview
	_ = json.Unmarshal(body, &rv)
	return rv
}

// What names the request in a sentence: `UPDATE of Pod "web"
// (ephemeralcontainers)`.
func (rv WireReview) What() string {
	req := rv.Request
	return WithSubresource(Describe(req.Operation, req.Kind.Kind, req.Name, req.DryRun != nil && *req.DryRun), req.SubResource)
}

// WithSubresource is a request named by Describe with its subresource, if
// any: `UPDATE of Pod "web" (ephemeralcontainers)`.
func WithSubresource(what, subresource string) string {
	if subresource == "" {
		return what
	}
	return what + " (" + subresource + ")"
}

// RuleOf is the rule that a change to a request other than a pod's
// creation breaks: R3.2 for a pod's ephemeral containers, R2.1 for any
// other UPDATE of a pod, R2.6 for a workload.
func RuleOf(kind, subresource string) rule.ID {
	switch {
	case kind == "Pod" && subresource == "ephemeralcontainers":
		return rule.R3_2
	case kind == "Pod":
		return rule.R2_1
	}
	return rule.R2_6
}

// Would is the finding that an implementation would do something (verb:
// "change", "refuse") to a request (what, WireReview.What) whose change
// breaks r, were it sent; detail follows, after a colon when not empty.
func Would(r rule.ID, verb, what, detail string) outcome.Finding {
	if detail != "" {
		detail = ": " + detail
	}
	return outcome.Finding{Rule: r, Text: fmt.Sprintf("would %s %s if its registration sent it%s", verb, what, detail)}
}

// Operations are a JSON patch's operations in a few words: "add
// /spec/containers/0/env, replace /metadata/labels/app".
func Operations(ops []string) string {
	if len(ops) > 4 {
		ops = append(slices.Clone(ops[:4]), fmt.Sprintf("… %d more", len(ops)-4))
	}
	return strings.Join(ops, ", ")
}

// Changed is the finding that a plug-in called in-process changed a
// request's object (what, WireReview.What) from original to mutated, as
// the patch a webhook would answer shows; none when it left it as it was.
func Changed(r rule.ID, what string, original, mutated runtime.Object) (outcome.Finding, bool) {
	ops, err := patchOps(original, mutated)
	if err != nil {
		return Would(r, "change", what, err.Error()), true
	}
	if len(ops) == 0 {
		return outcome.Finding{}, false
	}
	words := make([]string, len(ops))
	for i, op := range ops {
		words[i] = op.Operation + " " + op.Path
	}
	return Would(r, "change", what, Operations(words)), true
}

// Observe is the finding of an implementation's answer (an HTTP status
// and body) to a request it was sent only to see (sent, the request's
// review): none when it allowed the request unchanged.
func Observe(sent []byte, status int, answer []byte) (outcome.Finding, bool) {
	rv := ReadWireReview(sent)
	would := func(verb, detail string) (outcome.Finding, bool) {
		return Would(RuleOf(rv.Request.Kind.Kind, rv.Request.SubResource), verb, rv.What(), detail), true
	}
	if status != http.StatusOK {
		return would(fmt.Sprintf("answer HTTP %d to", status), FirstLine(answer))
	}
	got := ReadWireReview(answer)
	switch {
	case got.Response == nil:
		return would("answer no AdmissionReview to", "")
	case !got.Response.Allowed:
		message := ""
		if got.Response.Result != nil {
			message = got.Response.Result.Message
		}
		return would("refuse", message)
	case len(got.Response.Patch) == 0:
		return outcome.Finding{}, false
	}
	patch, err := jsonpatch.DecodePatch(got.Response.Patch)
	if err != nil {
		return would("answer a patch that is no JSON patch to", err.Error())
	}
	changed, err := patch.Apply(rv.Request.Object)
	if err != nil {
		return would("answer a patch that does not apply to", err.Error())
	}
	if jsonpatch.Equal(changed, rv.Request.Object) {
		return outcome.Finding{}, false
	}
	var ops []string
	for _, op := range patch {
		path, _ := op.Path()
		ops = append(ops, op.Kind()+" "+path)
	}
	return would("change", Operations(ops))
}

// Allow is the answer that admits the request sent (its review) as it is:
// what the harness gives the API server in place of the answer it kept.
func Allow(sent []byte) []byte {
	rv := ReadWireReview(sent)
	version := rv.APIVersion
	if version == "" {
		version = "admission.k8s.io/v1"
	}
	out, _ := json.Marshal(map[string]any{
		"apiVersion": version, "kind": "AdmissionReview",
		"response": map[string]any{"uid": rv.Request.UID, "allowed": true},
	})
	return out
}

// Observing serves next for the requests an implementation's registration
// does not send it: under backend.UnsubscribedReport, what next answers is
// noted in f (Observe) and the API server is answered Allow; under
// backend.UnsubscribedFail, next's answer goes to the API server as it is.
func Observing(next http.Handler, mode backend.Unsubscribed, f *Findings) http.Handler {
	if mode.Fail() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		inner := r.Clone(r.Context())
		inner.Body = io.NopCloser(bytes.NewReader(sent))
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, inner)
		Answered(w, sent, rec.Code, rec.Body.Bytes(), f)
	})
}

// Answered notes in f what the implementation answered (status, answer)
// to a request it was sent only to see, and answers the API server Allow.
func Answered(w http.ResponseWriter, sent []byte, status int, answer []byte, f *Findings) {
	if finding, ok := Observe(sent, status, answer); ok {
		f.Note(ReadWireReview(sent).Request.Namespace, finding)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(Allow(sent))
}

// FirstLine is the first line of an answer, cut short.
func FirstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 200 {
		b = append(b[:200:200], "…"...)
	}
	return string(b)
}
