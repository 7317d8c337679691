package pathlock_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"presetsim.dev/presetsim/internal/pathlock"
)

// TestClaim: a held path is refused with the holder's pid; a released one
// is gone, and can be claimed again; a lock file left by a process that
// ended (no flock on it) is taken over.
func TestClaim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	first, err := pathlock.Claim(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = pathlock.Claim(path)
	var held *pathlock.HeldError
	if !errors.As(err, &held) || held.Pid != os.Getpid() {
		t.Fatalf("second claim: %v, want a HeldError naming pid %d", err, os.Getpid())
	}
	if data, _ := os.ReadFile(path); string(data) != "first" {
		t.Errorf("the refused claim touched the holder's file: %q", data)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".lock"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after release: %v, want it removed", p, err)
		}
	}
	if err := first.Release(); err != nil {
		t.Errorf("second release: %v", err)
	}

	// A lock file with a pid but no flock: its owner was killed.
	if err := os.WriteFile(path+".lock", []byte("999999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := pathlock.Claim(path)
	if err != nil {
		t.Fatalf("claim after a killed owner: %v", err)
	}
	if err := again.Release(); err != nil {
		t.Fatal(err)
	}
}
