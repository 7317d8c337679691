package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/backends/envtest"
)

// TestSelfContained copies the binary into an empty directory, outside
// the repository, and runs it there with no path: the suite built into it
// runs, offline and on envtest, with the control-plane binaries found
// through KUBEBUILDER_ASSETS (PRESETSIM_BIN_DIR unset). A KUBEBUILDER_ASSETS
// of setup-envtest's own downloads (no kube-controller-manager) is refused
// with the binaries it lacks, before anything starts.
func TestSelfContained(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	bin, err := envtest.FindBinaries()
	if err != nil {
		t.Skipf("no control-plane binaries (%v)", err)
	}
	suite, err := fs.ReadDir(presetsim.Suite, presetsim.SuitePath)
	if err != nil || len(suite) == 0 {
		t.Fatalf("the built-in suite: %d files (%v)", len(suite), err)
	}
	dir := t.TempDir()
	self := filepath.Join(dir, "presetsim")
	copyFile(t, os.Args[0], self, 0o755)
	partial := filepath.Join(dir, "assets")
	if err := os.Mkdir(partial, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"etcd", "kube-apiserver", "kubectl"} {
		if err := os.Symlink(filepath.Join(bin, name), filepath.Join(partial, name)); err != nil {
			t.Fatal(err)
		}
	}
	run := func(assets string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(self, args...)
		cmd.Dir = dir
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, envtest.BinDirEnv+"=") && !strings.HasPrefix(kv, envtest.AssetsEnv+"=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, childEnv+"=1", envtest.AssetsEnv+"="+assets)
		out, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	for _, tc := range []struct {
		name   string
		assets string
		args   []string
		code   int
		want   []string
	}{
		{"offline", bin, []string{"run", "-v", "--backend", "offline", "--tags", "@R2.4", "--format", "progress"}, 0,
			[]string{"ok", "features/simple.feature: "}},
		{"envtest", bin, []string{"run", "-v", "--tags", "@R2.4", "--format", "progress"}, 0,
			[]string{"ok", "features/simple.feature: "}},
		{"setup-envtest's layout", partial, []string{"run", "--tags", "@R2.4"}, 1,
			[]string{"KUBEBUILDER_ASSETS=" + partial + " has no kube-controller-manager, kube-scheduler"}},
		{"the exported suite", bin, []string{"features", "export", "suite"}, 0, []string{fmt.Sprintf("wrote %d feature files to suite", len(suite))}},
		{"the exported suite run", bin, []string{"run", "-v", "--backend", "offline", "--tags", "@R2.4", "--format", "progress", "suite"}, 0,
			[]string{"ok", "suite/simple.feature: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := run(tc.assets, tc.args...)
			if code != tc.code {
				t.Fatalf("exit status %d, want %d; output:\n%s", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
