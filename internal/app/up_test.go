package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/pathlock"
)

// TestUpRefusesAHeldKubeconfig: while another up holds a kubeconfig path, a
// second up for it is refused before anything starts, with exit status 2,
// and leaves the holder's file alone.
func TestUpRefusesAHeldKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	held, err := pathlock.Claim(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = held.Release() })
	if err := os.WriteFile(path, []byte("the first up's"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = Run(context.Background(), &stdout, &stderr, []string{"up", "--kubeconfig", path})
	var exit cli.ExitError
	if !errors.As(err, &exit) || exit.Code != 2 {
		t.Fatalf("error %v, want exit status 2; stderr:\n%s", err, stderr.String())
	}
	if want := "another presetsim up is running with this kubeconfig"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	if strings.Contains(stderr.String(), "starting") {
		t.Errorf("the refused up started something:\n%s", stderr.String())
	}
	if data, _ := os.ReadFile(path); string(data) != "the first up's" {
		t.Errorf("the refused up touched the holder's kubeconfig: %q", data)
	}
}
