// Package reporttest holds what the tests of the report writers share:
// golden files, and opening an HTML page in headless Chromium (Debian's
// chromium, which make test installs).
package reporttest

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Render opens page in headless Chromium and returns its DOM once its
// scripts ran. It fails t when the page's script did not run to its end
// (which marks the body data-rendered="ok") or when the console logged an
// error, and takes a screenshot, copied to $PRESETSIM_SCREENSHOT when set.
// Without chromium it skips t, saying so.
func Render(t *testing.T, page []byte) string {
	t.Helper()
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (hack/install-chromium.sh installs Debian's); the HTML is still checked by its golden file")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + filepath.Join(dir, "profile"),
			"--enable-logging=stderr", "--v=0"}
		cmd := exec.CommandContext(ctx, browser, append(append(base, args...), "file://"+file)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	dom, logs := run("--dump-dom")
	if !strings.Contains(dom, `data-rendered="ok"`) {
		t.Errorf("the page's script did not run to its end; DOM:\n%s\nlog:\n%s", dom, logs)
	}
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "CONSOLE") && (strings.Contains(line, "Uncaught") || strings.Contains(line, "Error")) {
			t.Errorf("console error: %s", line)
		}
	}
	shot := filepath.Join(dir, "page.png")
	run("--screenshot="+shot, "--window-size=1280,1400")
	if info, err := os.Stat(shot); err != nil || info.Size() == 0 {
		t.Errorf("no screenshot: %v", err)
	}
	if out := os.Getenv("PRESETSIM_SCREENSHOT"); out != "" {
		data, _ := os.ReadFile(shot)
		_ = os.WriteFile(out, data, 0o644)
	}
	return dom
}

// GoldenFiles renders each file and compares it with its golden file, as
// Golden does, in a subtest named after the file.
func GoldenFiles(t *testing.T, files map[string]func(io.Writer) error, update bool) {
	t.Helper()
	for name, write := range files {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
			Golden(t, name, b.Bytes(), update)
		})
	}
}

// Golden compares got with the golden file testdata/<name>.golden, or
// rewrites that file first when update is set (the tests' -update flag).
func Golden(t *testing.T, name string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run with -update to accept):\n%s", name, path, got)
	}
}
