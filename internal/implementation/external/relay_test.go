package external

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/rule"
)

// TestInvalidAnswers: what counts as no valid answer to a request (R5.3),
// and what is a valid one, a denial included; of a v1beta1 request, what
// the API server accepts (no apiVersion, kind, uid or patchType) is valid.
func TestInvalidAnswers(t *testing.T) {
	request := `{"apiVersion":"admission.k8s.io/%s","kind":"AdmissionReview","request":{"uid":"u1","kind":{"kind":"Pod"},"name":"p","namespace":"n","operation":"CREATE","object":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}}}}`
	v1, v1beta1 := reviewOf(fmt.Appendf(nil, request, "v1")), reviewOf(fmt.Appendf(nil, request, "v1beta1"))
	bare := func(patch string) string {
		return `{"response":{"allowed":true,"patch":"` + base64.StdEncoding.EncodeToString([]byte(patch)) + `"}}`
	}
	answer := func(uid, patch string) string {
		a := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"` + uid + `","allowed":true`
		if patch != "" {
			a += `,"patchType":"JSONPatch","patch":"` + base64.StdEncoding.EncodeToString([]byte(patch)) + `"`
		}
		return a + `}}`
	}
	type answerCase struct {
		name   string
		status int
		body   string
		want   string // "" for a valid answer
	}
	cases := map[*review][]answerCase{&v1: {
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
		{"v1 asked, v1beta1 answered", 200, strings.Replace(answer("u1", ""), "/v1", "/v1beta1", 1), "no AdmissionReview of admission.k8s.io/v1"},
	}, &v1beta1: {
		{"v1beta1: no apiVersion, kind, uid or patchType", 200, bare(`[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`), ""},
		{"v1beta1: no response", 200, `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"}`, "has no response"},
		{"v1beta1: a patch that does not apply", 200, bare(`[{"op":"replace","path":"/spec/containers/5/name","value":"x"}]`), "does not apply"},
	}}
	for req, list := range cases {
		for _, tc := range list {
			t.Run(tc.name, func(t *testing.T) {
				got := invalid(*req, tc.status, []byte(tc.body))
				switch {
				case tc.want == "" && got != "":
					t.Errorf("a valid answer judged invalid: %s", got)
				case tc.want != "" && !strings.Contains(got, tc.want):
					t.Errorf("got %q, want it to contain %q", got, tc.want)
				}
			})
		}
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

// TestAbandonedCalls: a call the API server gives up on before its
// timeout (its own client went away) is no failure of the webhook; one it
// gives up on at its timeout is (R5.3).
func TestAbandonedCalls(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	r, client := relayTo(t, slow, backend.UnsubscribedReport)
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"kind":"Pod"},"name":"p","namespace":"%s","operation":"CREATE"}}`
	for _, tc := range []struct {
		name, timeout string
		giveUp        time.Duration
		noted         bool
	}{
		{"abandoned before the timeout", "10s", 50 * time.Millisecond, false},
		{"at the timeout", "1s", time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := strings.ReplaceAll(tc.name, " ", "-")
			ctx, cancel := context.WithTimeout(context.Background(), tc.giveUp)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL()+"?timeout="+tc.timeout, strings.NewReader(fmt.Sprintf(body, ns)))
			if err != nil {
				t.Fatal(err)
			}
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
			}
			// The relay notes the failure once the call to the webhook
			// has returned, just after the API server gave up.
			deadline := time.Now().Add(2 * time.Second)
			for len(r.Failed(ns)) == 0 && time.Now().Before(deadline) && tc.noted {
				time.Sleep(10 * time.Millisecond)
			}
			if !tc.noted {
				time.Sleep(200 * time.Millisecond)
			}
			if got := len(r.Failed(ns)) > 0; got != tc.noted {
				t.Errorf("noted as failed: %v, want %v (%v)", got, tc.noted, r.Failed(ns))
			}
		})
	}
}

// TestOtherRequests: a request the harness's webhook of other requests
// sends (OtherURL) reaches the webhook at its own path, and the webhook's
// failure to answer it is not noted (R5.3); the same failure to a request
// of the implementation's registration is. Under UnsubscribedReport the
// answer to the other request is a finding and the API server is told
// "allowed"; under UnsubscribedFail it gets the answer as it was. Pod
// creations are recorded (R5.4) from the implementation's registration
// only.
func TestOtherRequests(t *testing.T) {
	body := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"kind":"%s"},"name":"web","namespace":"%s","operation":"CREATE"}}`
	for _, mode := range []backend.Unsubscribed{backend.UnsubscribedReport, backend.UnsubscribedFail} {
		var paths []string
		var mu sync.Mutex
		failing := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paths = append(paths, r.URL.Path)
			mu.Unlock()
			http.Error(w, "no answer for this kind", http.StatusInternalServerError)
		}))
		defer failing.Close()
		r, client := relayTo(t, failing, mode)
		for _, tc := range []struct {
			name, url, kind string
			noted           bool
			sent            int
			status          int
			findings        int
		}{
			{"the implementation's registration", r.URL(), "Pod", true, 1, http.StatusInternalServerError, 0},
			{"the harness's webhook of other requests", r.OtherURL(), "Deployment", false, 0,
				map[backend.Unsubscribed]int{backend.UnsubscribedReport: http.StatusOK, backend.UnsubscribedFail: http.StatusInternalServerError}[mode],
				map[backend.Unsubscribed]int{backend.UnsubscribedReport: 1, backend.UnsubscribedFail: 0}[mode]},
		} {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				ns := strings.ReplaceAll(tc.name, " ", "-")
				resp, err := client.Post(tc.url+"?timeout=10s", "application/json", strings.NewReader(fmt.Sprintf(body, tc.kind, ns)))
				if err != nil {
					t.Fatal(err)
				}
				answer, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Errorf("the API server was answered HTTP %d (%s), want %d", resp.StatusCode, answer, tc.status)
				}
				if got := len(r.Failed(ns)) > 0; got != tc.noted {
					t.Errorf("noted as failed: %v, want %v (%v)", got, tc.noted, r.Failed(ns))
				}
				if sent, known := r.PodCreateSent(ns, "web"); sent != tc.sent || !known {
					t.Errorf("PodCreateSent = %d, %v; want %d, true", sent, known, tc.sent)
				}
				found := r.FindingsIn(ns)
				if len(found) != tc.findings {
					t.Errorf("findings %v, want %d", found, tc.findings)
				}
				for _, f := range found {
					if f.Rule != rule.R2_6 || !strings.Contains(f.Text, `would answer HTTP 500 to CREATE of Deployment "web"`) {
						t.Errorf("finding %s, want R2.6 and what the webhook answered", f)
					}
				}
			})
		}
		mu.Lock()
		if want := []string{"/mutate", "/mutate"}; !slices.Equal(paths, want) {
			t.Errorf("%s: the webhook was called at %v, want %v", mode, paths, want)
		}
		mu.Unlock()
	}
}

// relayTo starts a relay to the webhook at path /mutate of a test server,
// stopped when the test ends, and a client that trusts the relay.
func relayTo(t *testing.T, webhook *httptest.Server, mode backend.Unsubscribed) (*relay, *http.Client) {
	t.Helper()
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: webhook.Certificate().Raw})
	r, err := startRelay(webhook.URL+"/mutate", caPEM, mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(r.CABundle())
	return r, &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
}
