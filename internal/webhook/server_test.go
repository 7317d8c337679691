package webhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/internal/webhook"
)

func caPool(t *testing.T, bundle []byte) *x509.CertPool {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(bundle) {
		t.Fatalf("CA bundle holds no certificate:\n%s", bundle)
	}
	return pool
}

func tlsClient(cfg *tls.Config) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
}

// serve starts a server and returns it with a stop function; stop runs at
// most once (the test's own call or the cleanup). Server.Stop must be called
// once only: a second call would block on the result of the first.
func serve(t *testing.T, h http.Handler) (*webhook.Server, func(context.Context) error) {
	t.Helper()
	s, err := webhook.Serve("127.0.0.1", h)
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var (
		once    sync.Once
		stopErr error
	)
	stop := func(ctx context.Context) error {
		once.Do(func() { stopErr = s.Stop(ctx) })
		return stopErr
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = stop(ctx)
	})
	return s, stop
}

func TestServe(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux.Handle("/mutate", newHandler(defaultLister(), nil))
	s, stop := serve(t, mux)

	if !strings.HasPrefix(s.URL, "https://127.0.0.1:") {
		t.Errorf("URL = %q, want https://127.0.0.1:<port>", s.URL)
	}
	client := tlsClient(&tls.Config{RootCAs: caPool(t, s.CABundle), MinVersion: tls.VersionTLS12})

	t.Run("a client trusting CABundle gets an answer", func(t *testing.T) {
		resp, err := client.Get(s.URL + "/healthz")
		if err != nil {
			t.Fatalf("GET: %v", err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || string(body) != "ok" {
			t.Errorf("got %d %q, want 200 ok", resp.StatusCode, body)
		}
		if resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 {
			t.Errorf("connection state %+v, want TLS 1.2 or later", resp.TLS)
		}
	})

	t.Run("the webhook answers an AdmissionReview over TLS", func(t *testing.T) {
		resp, err := client.Post(s.URL+"/mutate", "application/json",
			bytes.NewReader(reviewRequest{uid: "tls-uid", object: websitePod}.body(t)))
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		defer resp.Body.Close()
		out := &admissionv1.AdmissionReview{}
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
		if out.Response == nil || !out.Response.Allowed || out.Response.UID != "tls-uid" || len(out.Response.Patch) == 0 {
			t.Errorf("response %+v, want allowed with a patch and UID tls-uid", out.Response)
		}
	})

	t.Run("a client that does not trust the CA fails", func(t *testing.T) {
		c := tlsClient(&tls.Config{MinVersion: tls.VersionTLS12, RootCAs: x509.NewCertPool()})
		resp, err := c.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			t.Fatal("GET succeeded without trusting the CA")
		}
		var unknown x509.UnknownAuthorityError
		if !errors.As(err, &unknown) {
			t.Errorf("error %v, want x509.UnknownAuthorityError", err)
		}
	})

	t.Run("a TLS 1.1 client fails", func(t *testing.T) {
		c := tlsClient(&tls.Config{
			RootCAs:    caPool(t, s.CABundle),
			MinVersion: tls.VersionTLS10, //nolint:gosec // the point of the test
			MaxVersion: tls.VersionTLS11,
		})
		resp, err := c.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			t.Fatal("GET succeeded over TLS 1.1")
		}
		t.Logf("TLS 1.1 client: %v", err)
	})

	t.Run("plain HTTP gets no answer", func(t *testing.T) {
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http" + strings.TrimPrefix(s.URL, "https") + "/healthz")
		if err == nil {
			defer resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Errorf("plain HTTP answered 200")
			}
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if resp, err := client.Get(s.URL + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("GET after Stop succeeded")
	}
}

func TestServeBadHost(t *testing.T) {
	if s, err := webhook.Serve("192.0.2.1", http.NotFoundHandler()); err == nil {
		_ = s.Stop(context.Background())
		t.Fatal("Serve on an address of no local interface succeeded")
	}
}

// TestStopWaitsForRequestsInFlight, over HTTP/1.1 and over HTTP/2 (as the
// API server calls a webhook).
func TestStopWaitsForRequestsInFlight(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("HTTP/2 %t", h2), func(t *testing.T) { stopWaitsForRequestInFlight(t, h2) })
	}
}

func stopWaitsForRequestInFlight(t *testing.T, h2 bool) {
	started, release := make(chan struct{}), make(chan struct{})
	s, stop := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		_, _ = io.WriteString(w, r.Proto)
	}))
	client := tlsClient(&tls.Config{RootCAs: caPool(t, s.CABundle), MinVersion: tls.VersionTLS12})
	client.Transport.(*http.Transport).ForceAttemptHTTP2 = h2
	want := map[bool]string{false: "HTTP/1.1", true: "HTTP/2.0"}[h2]
	type result struct {
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := client.Get(s.URL)
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- result{string(b), err}
	}()
	<-started

	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stopped <- stop(ctx)
	}()
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) while a request was in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-stopped; err != nil {
		t.Errorf("Stop: %v", err)
	}
	if r := <-got; r.err != nil || r.body != want {
		t.Errorf("request in flight: %q, %v; want %s", r.body, r.err, want)
	}
}

func TestStopAfterDeadline(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	s, err := webhook.Serve("127.0.0.1", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		close(started)
		<-release
	}))
	if err != nil {
		t.Fatal(err)
	}
	client := tlsClient(&tls.Config{RootCAs: caPool(t, s.CABundle), MinVersion: tls.VersionTLS12})
	go func() {
		if resp, err := client.Get(s.URL); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Stop(ctx) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Stop returned nil although the deadline passed with a request in flight")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not return after its deadline")
	}
}

func TestNewCertificates(t *testing.T) {
	certs, err := webhook.NewCertificates("127.0.0.1", "webhook.presetsim.svc")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(certs.CABundle)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("CABundle is not a PEM certificate:\n%s", certs.CABundle)
	}
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.IsCA {
		t.Error("CA certificate is not a CA")
	}
	if len(certs.Serving.Certificate) != 1 || certs.Serving.PrivateKey == nil {
		t.Fatalf("serving certificate %d certs, key %v", len(certs.Serving.Certificate), certs.Serving.PrivateKey != nil)
	}
	leaf, err := x509.ParseCertificate(certs.Serving.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"webhook.presetsim.svc"}, leaf.DNSNames); diff != "" {
		t.Errorf("DNS names (-want +got):\n%s", diff)
	}
	if len(leaf.IPAddresses) != 1 || !leaf.IPAddresses[0].Equal(net.ParseIP("127.0.0.1")) {
		t.Errorf("IP addresses = %v, want [127.0.0.1]", leaf.IPAddresses)
	}
	roots := caPool(t, certs.CABundle)
	for _, host := range []string{"127.0.0.1", "webhook.presetsim.svc"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("serving certificate does not verify for %s: %v", host, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "other.example", Roots: roots}); err == nil {
		t.Error("serving certificate verifies for a host it was not made for")
	}
	if _, err := tls.X509KeyPair(certs.CABundle, nil); err == nil {
		t.Error("the CA bundle carries a private key")
	}

	// Each call makes a new CA.
	other, err := webhook.NewCertificates("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(other.CABundle, certs.CABundle) {
		t.Error("two calls returned the same CA")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: caPool(t, other.CABundle)}); err == nil {
		t.Error("serving certificate verifies against another run's CA")
	}
}

func TestMutatingWebhookConfiguration(t *testing.T) {
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	side := admissionregistrationv1.SideEffectClassNoneOnDryRun
	reinvoke := admissionregistrationv1.IfNeededReinvocationPolicy
	equivalent := admissionregistrationv1.Equivalent
	scope := admissionregistrationv1.NamespacedScope
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"presetsim.dev/test": "true"}}

	want := func(failure admissionregistrationv1.FailurePolicyType, timeout int32, sel *metav1.LabelSelector) *admissionregistrationv1.MutatingWebhookConfiguration {
		url := "https://127.0.0.1:8443/mutate"
		return &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "podpreset.presetsim.dev"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name:         "podpreset.presetsim.dev",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: []byte("CA")},
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{
						APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope,
					},
				}},
				FailurePolicy:           &failure,
				MatchPolicy:             &equivalent,
				NamespaceSelector:       sel,
				SideEffects:             &side,
				TimeoutSeconds:          &timeout,
				AdmissionReviewVersions: []string{"v1"},
				ReinvocationPolicy:      &reinvoke,
			}},
		}
	}
	tests := []struct {
		name string
		cfg  webhook.PodConfig
		want *admissionregistrationv1.MutatingWebhookConfiguration
	}{
		{
			name: "defaults: failurePolicy Fail, timeout 10s",
			cfg:  webhook.PodConfig{Name: "podpreset.presetsim.dev", URL: "https://127.0.0.1:8443/mutate", CABundle: []byte("CA")},
			want: want(fail, 10, nil),
		},
		{
			name: "failurePolicy Ignore, timeout and namespace selector",
			cfg: webhook.PodConfig{Name: "podpreset.presetsim.dev", URL: "https://127.0.0.1:8443/mutate", CABundle: []byte("CA"),
				FailurePolicy: ignore, TimeoutSeconds: 3, NamespaceSelector: selector},
			want: want(ignore, 3, selector),
		},
		{
			name: "explicit Fail",
			cfg: webhook.PodConfig{Name: "podpreset.presetsim.dev", URL: "https://127.0.0.1:8443/mutate", CABundle: []byte("CA"),
				FailurePolicy: fail},
			want: want(fail, 10, nil),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := webhook.MutatingWebhookConfiguration(tc.cfg)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("configuration (-want +got):\n%s", diff)
			}
			wh := got.Webhooks[0]
			// The points of R5.1, spelled out.
			if *wh.SideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun ||
				*wh.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy ||
				!cmp.Equal(wh.AdmissionReviewVersions, []string{"v1"}) ||
				wh.ClientConfig.Service != nil {
				t.Errorf("webhook %+v does not follow R5.1", wh)
			}
		})
	}

	// The configuration does not alias the caller's values.
	cfg := webhook.PodConfig{Name: "n", URL: "https://a"}
	got := webhook.MutatingWebhookConfiguration(cfg)
	cfg.URL = "https://b"
	if *got.Webhooks[0].ClientConfig.URL != "https://a" {
		t.Errorf("URL changed with the caller's PodConfig")
	}
}

func TestStopTwice(t *testing.T) {
	s, err := webhook.Serve("127.0.0.1", http.NewServeMux())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		done := make(chan error, 1)
		go func() { done <- s.Stop(context.Background()) }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Stop #%d: %v", i+1, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Stop #%d did not return", i+1)
		}
	}
}

// TestStopClosesIdleConnections: with no request in flight, Stop returns
// within a deadline that http.Server.Shutdown alone would miss: it counts a
// connection that has sent no request yet as busy for five seconds, and an
// HTTP/2 connection as busy until its client closes it.
func TestStopClosesIdleConnections(t *testing.T) {
	for _, c := range []struct {
		name string
		open func(t *testing.T, s *webhook.Server)
	}{
		{"a connection that sent no request", func(t *testing.T, s *webhook.Server) {
			conn, err := tls.Dial("tcp", strings.TrimPrefix(s.URL, "https://"), &tls.Config{RootCAs: caPool(t, s.CABundle), MinVersion: tls.VersionTLS12})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
		}},
		{"an HTTP/2 connection after its request", func(t *testing.T, s *webhook.Server) {
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool(t, s.CABundle), MinVersion: tls.VersionTLS12}, ForceAttemptHTTP2: true}
			t.Cleanup(tr.CloseIdleConnections)
			resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(s.URL)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.ProtoMajor != 2 {
				t.Fatalf("the request went over %s, want HTTP/2", resp.Proto)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, stop := serve(t, http.NewServeMux())
			c.open(t, s)
			ctx, cancel := context.WithTimeout(context.Background(), 800*time.Millisecond)
			defer cancel()
			if err := stop(ctx); err != nil {
				t.Errorf("Stop with nothing in flight: %v", err)
			}
		})
	}
}
