package implementation

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"presetsim.dev/presetsim/harness/backend"
)

// TestWatchServed: a watch refused with 429 while the watch cache fills is
// asked again at once, not after client-go's Retry-After second; any other
// refusal is the error; the watch asked for is of the CRD's first served
// version and plural.
func TestWatchServed(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "podpresets.settings.k8s.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "settings.k8s.io",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "podpresets"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1old", Served: false}, {Name: "v1alpha1", Served: true},
			},
		},
	}
	tests := []struct {
		name     string
		refusals int // 429s before the watch is accepted
		status   int // then this; 200 accepts
		err      string
		calls    int32
	}{
		{name: "accepted at once", status: http.StatusOK, calls: 1},
		{name: "accepted once the cache filled", refusals: 3, status: http.StatusOK, calls: 4},
		{name: "forbidden", refusals: 1, status: http.StatusForbidden, err: "forbidden", calls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := calls.Add(1)
				if r.URL.Path != "/apis/settings.k8s.io/v1alpha1/podpresets" || r.URL.Query().Get("watch") != "true" {
					t.Errorf("asked %s, want a watch of /apis/settings.k8s.io/v1alpha1/podpresets", r.URL)
				}
				w.Header().Set("Content-Type", "application/json")
				switch {
				case int(n) <= tt.refusals:
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","code":429}`))
				case tt.status == http.StatusOK:
					w.WriteHeader(http.StatusOK)
				default:
					w.WriteHeader(tt.status)
					_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"forbidden","reason":"Forbidden","code":403}`))
				}
			}))
			defer srv.Close()
			began := time.Now()
			err := watchServed(context.Background(), &backend.API{Config: &rest.Config{Host: srv.URL}}, crd)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("watchServed: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("watchServed: %v, want an error containing %q", err, tt.err)
			}
			if got := calls.Load(); got != tt.calls {
				t.Errorf("%d requests, want %d", got, tt.calls)
			}
			if took := time.Since(began); took > 900*time.Millisecond {
				t.Errorf("took %s: a refusal was retried after its Retry-After", took)
			}
		})
	}
}

// TestUntilCreatesProceed: no wait for a CRD established longer ago than
// the API server holds creates, the rest of the hold for one established
// just now, and a cancelled context ends the wait with its error.
func TestUntilCreatesProceed(t *testing.T) {
	began := time.Now()
	if err := untilCreatesProceed(context.Background(), began.Add(-time.Hour)); err != nil || time.Since(began) > 100*time.Millisecond {
		t.Errorf("an old CRD: %v after %s, want nil at once", err, time.Since(began))
	}
	began = time.Now()
	established := began.Add(-createHold + 300*time.Millisecond)
	if err := untilCreatesProceed(context.Background(), established); err != nil {
		t.Fatal(err)
	}
	if until := time.Since(established); until < createHold {
		t.Errorf("returned %s after the CRD was established, within the %s the API server holds creates", until, createHold)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := untilCreatesProceed(ctx, time.Now()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
