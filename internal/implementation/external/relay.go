package external

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/webhook"
	"presetsim.dev/presetsim/outcome"
)

// relay stands between the API server and the webhook under test, on
// this host: the API server calls the relay (registered in the webhook's
// place, with a certificate of the run's own), the relay passes each
// request to the webhook and its answer back unchanged, and notes every
// request that got no valid answer (R5.3): no answer (refused, reset, the
// API server's timeout), an HTTP status other than 200, a body that is no
// AdmissionReview answering that request, or a patch that cannot be
// applied to the object the request sent. The failure policy decides what
// the API server then does; the relay sees the failure either way, so a
// webhook that fails under failurePolicy: Ignore is not "a pod left
// alone".
type relay struct {
	server *webhook.Server
	target *url.URL
	client *http.Client
	// failed are the requests with no valid answer. Fuzz reuses
	// namespaces, and reads a case's failures as those noted after the
	// ones before it: past webhook.MaxFailures, a namespace's are not seen.
	failed webhook.Failures
	// sent are the pods whose CREATE the API server sent (R5.4).
	sent webhook.Deliveries
	// unsubscribed is what becomes of the webhook's answers to the
	// requests of the harness's webhook of other requests (OtherURL), and
	// findings what it did with them under backend.UnsubscribedReport.
	unsubscribed backend.Unsubscribed
	findings     webhook.Findings
}

// startRelay serves a relay to target, whose certificate caPEM verifies,
// on 127.0.0.1.
func startRelay(target string, caPEM []byte, unsubscribed backend.Unsubscribed) (*relay, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("the webhook's CA bundle holds no PEM certificate")
	}
	r := &relay{target: u, unsubscribed: unsubscribed, client: &http.Client{
		Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 16,
			IdleConnTimeout:     30 * time.Second,
		},
	}}
	if r.server, err = webhook.Serve("127.0.0.1", r); err != nil {
		return nil, fmt.Errorf("the harness's relay to the webhook: %w", err)
	}
	return r, nil
}

// loopback reports whether a webhook URL names this host's loopback, where
// the API server of a backend on this host reaches it and so can reach a
// relay in its place.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// URL is where the API server calls the relay for the webhook's URL.
func (r *relay) URL() string { return r.server.URL + r.target.RequestURI() }

// otherPrefix marks, at the head of the URL path of the harness's own
// webhook for the requests other than a pod's creation
// (webhook.WithOtherRequests), what that webhook sends (a webhook URL may
// carry no query): the relay takes it off before it passes a request on.
const otherPrefix = "/presetsim-other-requests"

// OtherURL is URL for the harness's webhook of other requests: requests
// the implementation's registration does not send it. What it answers to
// those is no failure of R5.3: under backend.UnsubscribedReport the answer
// is a finding, kept from the API server (webhook.Answered); under
// backend.UnsubscribedFail it goes to the API server, and what it did is
// judged by what became of the request (R2.1, R2.6, R3.2: nothing).
func (r *relay) OtherURL() string { return r.server.URL + otherPrefix + r.target.RequestURI() }

// CABundle verifies the relay's certificate.
func (r *relay) CABundle() []byte { return r.server.CABundle }

// Stop stops serving.
func (r *relay) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.server.Stop(ctx)
	r.client.CloseIdleConnections()
}

// Failed are the requests in the namespace that got no valid answer, as
// sentences, at most webhook.MaxFailures.
func (r *relay) Failed(namespace string) []string { return r.failed.In(namespace) }

// PodCreateSent is how many times the API server sent the CREATE of the
// pod namespace/name (webhook.Deliveries).
func (r *relay) PodCreateSent(namespace, name string) (times int, known bool) {
	return r.sent.Sent(namespace, name)
}

// FindingsIn are what the webhook did with the requests of the namespace
// its registration does not send it (backend.Findings).
func (r *relay) FindingsIn(namespace string) []outcome.Finding {
	return r.findings.FindingsIn(namespace)
}

// PodCreatesSent is how many pod creations of the namespace the API server
// sent, named or not.
func (r *relay) PodCreatesSent(namespace string) int { return r.sent.In(namespace) }

// ServeHTTP passes the request to the webhook and its answer back.
func (r *relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, webhook.MaxRequestBytes+1))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	sent := reviewOf(body)
	forward := *req.URL
	other := strings.HasPrefix(forward.Path, otherPrefix+"/")
	if other {
		forward.Path = strings.TrimPrefix(forward.Path, otherPrefix)
		forward.RawPath = ""
	} else if rq := sent.Request; rq.Operation == "CREATE" && rq.Kind.Kind == "Pod" && rq.SubResource == "" {
		r.sent.Note(rq.Namespace, rq.Name)
	}
	note := r.note
	if other {
		note = func(review, string) {}
	}
	observed := other && !r.unsubscribed.Fail()
	out, err := http.NewRequestWithContext(req.Context(), http.MethodPost, r.target.Scheme+"://"+r.target.Host+forward.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	out.Header.Set("Content-Type", req.Header.Get("Content-Type"))
	out.Header.Set("Accept", req.Header.Get("Accept"))
	start := time.Now()
	resp, err := r.client.Do(out)
	if err != nil {
		why := "no answer: " + err.Error()
		if req.Context().Err() != nil {
			elapsed := time.Since(start)
			if timeout, ok := callTimeout(req); ok && elapsed < timeout-timeoutSlack {
				// The API server gave up before its timeout: its own
				// client went away (a probe the harness stopped waiting
				// for), which is no failure of the webhook.
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			why = fmt.Sprintf("no answer within the API server's timeout (it gave up after %s)", elapsed.Round(time.Millisecond))
		}
		if observed {
			webhook.Answered(w, body, http.StatusBadGateway, []byte(why), &r.findings)
			return
		}
		note(sent, why)
		// The API server words a 502 with its body: "connection refused"
		// there is what start-up's readiness reads.
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, webhook.MaxRequestBytes+1))
	if err != nil {
		note(sent, "the answer could not be read: "+err.Error())
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if observed {
		webhook.Answered(w, body, resp.StatusCode, answer, &r.findings)
		return
	}
	if why := invalid(sent, resp.StatusCode, answer); why != "" {
		note(sent, why)
	}
	for _, h := range []string{"Content-Type", "Content-Length"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

// timeoutSlack is how much earlier than its timeout an API server may give
// up on a call for the relay to count it as the timeout.
const timeoutSlack = 250 * time.Millisecond

// callTimeout is the timeout an API server gave a webhook call: the
// "timeout" parameter it adds to the URL.
func callTimeout(req *http.Request) (time.Duration, bool) {
	d, err := time.ParseDuration(req.URL.Query().Get("timeout"))
	return d, err == nil && d > 0
}

// note records a failed request under its namespace.
func (r *relay) note(rv review, why string) {
	req := rv.Request
	r.failed.Note(req.Namespace, webhook.Describe(req.Operation, req.Kind.Kind, req.Name, req.DryRun != nil && *req.DryRun)+": "+why)
}

// review is what the relay reads of an AdmissionReview.
type review = webhook.WireReview

// reviewOf reads a request's review; what cannot be read stays empty.
func reviewOf(body []byte) review { return webhook.ReadWireReview(body) }

// invalid says why an answer is not a valid answer to the request, "" when
// it is.
func invalid(req review, status int, body []byte) string {
	if status != http.StatusOK {
		return fmt.Sprintf("HTTP %d: %s", status, webhook.FirstLine(body))
	}
	if len(body) > webhook.MaxRequestBytes {
		return "the answer is larger than the API server reads"
	}
	var rv review
	if err := json.Unmarshal(body, &rv); err != nil {
		return "the answer is no AdmissionReview: " + err.Error()
	}
	// The API server reads the answer as the version it asked in. Of a
	// v1beta1 answer it checks only that there is a response, and takes a
	// patch as a JSON patch (k8s.io/apiserver's VerifyAdmissionResponse):
	// what it accepts is no failure of the webhook.
	lenient := req.APIVersion == "admission.k8s.io/v1beta1"
	switch {
	case !lenient && (rv.Kind != "AdmissionReview" || rv.APIVersion != req.APIVersion):
		return fmt.Sprintf("the answer is no AdmissionReview of %s (apiVersion %q, kind %q)", req.APIVersion, rv.APIVersion, rv.Kind)
	case rv.Response == nil:
		return "the AdmissionReview has no response"
	case !lenient && rv.Response.UID != req.Request.UID:
		return fmt.Sprintf("the response's uid %q is not the request's %q", rv.Response.UID, req.Request.UID)
	case len(rv.Response.Patch) == 0:
		return ""
	case !lenient && (rv.Response.PatchType == nil || *rv.Response.PatchType != "JSONPatch"):
		return "a patch without patchType JSONPatch"
	}
	patch, err := jsonpatch.DecodePatch(rv.Response.Patch)
	if err != nil {
		return "a patch that is no JSON patch: " + err.Error()
	}
	if _, err := patch.Apply(req.Request.Object); err != nil {
		return "a patch that does not apply to the object sent: " + err.Error()
	}
	return ""
}
