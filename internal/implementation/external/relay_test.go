package external

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestInvalidAnswers: what counts as no valid answer to a request (R5.3),
// and what is a valid one, a denial included.
func TestInvalidAnswers(t *testing.T) {
	req := reviewOf([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"kind":"Pod"},"name":"p","namespace":"n","operation":"CREATE","object":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}}}}`))
	answer := func(uid, patch string) string {
		a := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"` + uid + `","allowed":true`
		if patch != "" {
			a += `,"patchType":"JSONPatch","patch":"` + base64.StdEncoding.EncodeToString([]byte(patch)) + `"`
		}
		return a + `}}`
	}
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string // "" for a valid answer
	}{
		{"allowed, no patch", 200, answer("u1", ""), ""},
		{"a patch that applies", 200, answer("u1", `[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`), ""},
		{"denied", 200, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u1","allowed":false,"status":{"code":403}}}`, ""},
		{"a server error", 500, "panic: assignment to entry in nil map\ngoroutine 1", "HTTP 500: panic: assignment to entry in nil map"},
		{"not JSON", 200, "<html>", "no AdmissionReview"},
		{"another kind", 200, `{"apiVersion":"v1","kind":"Status"}`, "no AdmissionReview"},
		{"no response", 200, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, "has no response"},
		{"another request's uid", 200, answer("u2", ""), `uid "u2" is not the request's "u1"`},
		{"a patch that does not apply", 200, answer("u1", `[{"op":"replace","path":"/spec/containers/5/name","value":"x"}]`), "does not apply"},
		{"no JSON patch", 200, answer("u1", `{"op":"add"}`), "no JSON patch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := invalid(req, tc.status, []byte(tc.body))
			switch {
			case tc.want == "" && got != "":
				t.Errorf("a valid answer judged invalid: %s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// TestLoopback: the relay stands only in front of a webhook the API
// server reaches on this host's loopback.
func TestLoopback(t *testing.T) {
	for url, want := range map[string]bool{
		"https://127.0.0.1:9443/mutate": true, "https://localhost/x": true, "https://[::1]:8443/": true,
		"https://10.0.0.7:9443/mutate": false, "https://webhook.svc:443/": false, "::": false,
	} {
		if got := loopback(url); got != want {
			t.Errorf("loopback(%q) = %v, want %v", url, got, want)
		}
	}
}
