package webhook

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/rule"
)

// TestUnsubscribed: of the other requests, those no rule of the
// registration sends are left for the harness's webhook, wildcards and
// subresources read as the API server reads them.
func TestUnsubscribed(t *testing.T) {
	rule := func(ops []admissionregistrationv1.OperationType, groups []string, resources ...string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{Operations: ops,
			Rule: admissionregistrationv1.Rule{APIGroups: groups, APIVersions: []string{"v1"}, Resources: resources}}
	}
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	createUpdate := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	all := []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll}
	for _, tc := range []struct {
		name  string
		rules []admissionregistrationv1.RuleWithOperations
		want  []string
	}{
		{"CREATE of pods", []admissionregistrationv1.RuleWithOperations{rule(create, []string{""}, "pods")},
			[]string{"pods", "pods/ephemeralcontainers", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs"}},
		{"CREATE and UPDATE of pods", []admissionregistrationv1.RuleWithOperations{rule(createUpdate, []string{""}, "pods")},
			[]string{"pods/ephemeralcontainers", "deployments", "replicasets", "statefulsets", "daemonsets", "jobs"}},
		{"every operation on pods and their subresources", []admissionregistrationv1.RuleWithOperations{rule(all, []string{""}, "pods", "pods/*")},
			[]string{"deployments", "replicasets", "statefulsets", "daemonsets", "jobs"}},
		{"* is every resource but no subresource", []admissionregistrationv1.RuleWithOperations{rule(all, []string{"*"}, "*")},
			[]string{"pods/ephemeralcontainers"}},
		{"*/* is everything", []admissionregistrationv1.RuleWithOperations{rule(all, []string{"*"}, "*/*")}, nil},
		{"workloads of apps only", []admissionregistrationv1.RuleWithOperations{rule(create, []string{""}, "pods"), rule(create, []string{"apps"}, "deployments", "replicasets")},
			[]string{"pods", "pods/ephemeralcontainers", "statefulsets", "daemonsets", "jobs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := &admissionregistrationv1.MutatingWebhookConfiguration{Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "w", Rules: tc.rules}}}
			var got []string
			for _, r := range Unsubscribed(reg) {
				got = append(got, r.Resources[0])
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("unsubscribed %v, want %v", got, tc.want)
			}
		})
	}
}

// TestObserve: what an implementation answered to a request it was sent
// only to see is a finding on the request's rule when it changed,
// refused or failed it, and none when it allowed it as it was.
func TestObserve(t *testing.T) {
	const sent = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"kind":"Pod"},"name":"web","namespace":"n","operation":"UPDATE","subResource":"%s","object":{"metadata":{"name":"web","labels":{"a":"b"}},"spec":{"containers":[{"name":"c"}]}}}}`
	answer := func(response string) string {
		return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":` + response + `}`
	}
	patch := func(ops string) string {
		b, _ := json.Marshal([]byte(ops))
		return answer(`{"uid":"u1","allowed":true,"patchType":"JSONPatch","patch":` + string(b) + `}`)
	}
	for _, tc := range []struct {
		name, subresource string
		status            int
		answer            string
		rule              rule.ID
		text              string // "" when no finding
	}{
		{"allowed as it was", "", 200, answer(`{"uid":"u1","allowed":true}`), "", ""},
		{"a patch that changes nothing", "", 200, patch(`[{"op":"replace","path":"/metadata/labels/a","value":"b"}]`), "", ""},
		{"a label changed", "", 200, patch(`[{"op":"replace","path":"/metadata/labels/a","value":"c"}]`), rule.R2_1,
			`would change UPDATE of Pod "web" if its registration sent it: replace /metadata/labels/a`},
		{"env into an ephemeral container", "ephemeralcontainers", 200, patch(`[{"op":"add","path":"/spec/containers/0/env","value":[]}]`), rule.R3_2,
			`would change UPDATE of Pod "web" (ephemeralcontainers) if its registration sent it: add /spec/containers/0/env`},
		{"refused", "", 200, answer(`{"uid":"u1","allowed":false,"status":{"message":"no updates"}}`), rule.R2_1,
			`would refuse UPDATE of Pod "web" if its registration sent it: no updates`},
		{"an error status", "", 500, "boom\nmore", rule.R2_1, `would answer HTTP 500 to UPDATE of Pod "web" if its registration sent it: boom`},
		{"no review", "", 200, `{}`, rule.R2_1, `would answer no AdmissionReview to UPDATE of Pod "web"`},
		{"a patch that does not apply", "", 200, patch(`[{"op":"replace","path":"/spec/nothing/0","value":1}]`), rule.R2_1, `would answer a patch that does not apply to`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := Observe([]byte(strings.Replace(sent, "%s", tc.subresource, 1)), tc.status, []byte(tc.answer))
			if ok != (tc.text != "") {
				t.Fatalf("finding %v (%s), want one: %v", ok, f, tc.text != "")
			}
			if ok && (f.Rule != tc.rule || !strings.Contains(f.Text, tc.text)) {
				t.Errorf("finding %s, want %s: …%s…", f, tc.rule, tc.text)
			}
		})
	}
}

// TestObserving: under UnsubscribedReport the API server is answered
// "allowed" to the request, with its uid, in its review version, whatever
// the implementation answered, and the finding is noted under the
// request's namespace; under UnsubscribedFail it gets the implementation's
// answer and nothing is noted.
func TestObserving(t *testing.T) {
	const sent = `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u7","kind":{"kind":"Deployment"},"name":"web","namespace":"n","operation":"CREATE","object":{"spec":{}}}}`
	refusing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		_, _ = io.WriteString(w, `{"response":{"uid":"u7","allowed":false,"status":{"message":"templates are mine"}}}`)
	})
	for _, tc := range []struct {
		mode     backend.Unsubscribed
		allowed  bool
		findings int
	}{
		{backend.UnsubscribedReport, true, 1},
		{backend.UnsubscribedFail, false, 0},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			var f Findings
			rec := httptest.NewRecorder()
			Observing(refusing, tc.mode, &f).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/other-requests", strings.NewReader(sent)))
			var got WireReview
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.Response == nil {
				t.Fatalf("answer %s: %v", rec.Body, err)
			}
			if got.Response.Allowed != tc.allowed {
				t.Errorf("allowed %v, want %v", got.Response.Allowed, tc.allowed)
			}
			if tc.allowed && (got.APIVersion != "admission.k8s.io/v1beta1" || got.Kind != "AdmissionReview" || got.Response.UID != "u7") {
				t.Errorf("answer %s, want an AdmissionReview of v1beta1 answering u7", rec.Body)
			}
			found := f.FindingsIn("n")
			if len(found) != tc.findings {
				t.Fatalf("findings %v, want %d", found, tc.findings)
			}
			for _, x := range found {
				if x.Rule != rule.R2_6 || !strings.Contains(x.Text, `would refuse CREATE of Deployment "web" if its registration sent it: templates are mine`) {
					t.Errorf("finding %s", x)
				}
			}
		})
	}
}
