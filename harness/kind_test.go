package harness

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Without a Docker engine the kind backend fails at once, in one line,
// before it starts anything.
func TestKindWithoutDocker(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	began := time.Now()
	w, err := Start(context.Background(), Options{Backend: Kind})
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

func TestKindRefusesExternalWebhooks(t *testing.T) {
	_, err := Start(context.Background(), Options{Backend: Kind, External: &ExternalModule{URL: "https://127.0.0.1:1"}})
	if err == nil || !strings.Contains(err.Error(), "the kind backend tests the in-process modules") {
		t.Fatalf("error %v", err)
	}
}
