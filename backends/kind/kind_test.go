package kind_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/kind"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/implementation/external"
)

// Without a Docker engine the kind backend fails at once, in one line,
// before it starts anything.
func TestKindWithoutDocker(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	began := time.Now()
	w, err := harness.Start(context.Background(), harness.Options{Backend: kind.New(kind.Options{})})
	if err == nil {
		_ = w.Stop()
		t.Fatal("started without Docker")
	}
	if want := "the kind backend needs Docker: no docker command on PATH"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if strings.Contains(err.Error(), "\n") || time.Since(began) > 5*time.Second {
		t.Errorf("not a fast one-line reason: %q after %s", err, time.Since(began))
	}
}

// An external webhook is refused before the cluster is created: the kind
// node's API server cannot call a webhook on this host's loopback.
func TestKindRefusesExternalWebhooks(t *testing.T) {
	impl := external.New(external.Options{URL: "https://127.0.0.1:1"})
	_, err := harness.Start(context.Background(), harness.Options{Backend: kind.New(kind.Options{}), Implementation: impl})
	if want := "an external webhook is called by an API server on this host, and the kind backend has none: use the envtest backend"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
