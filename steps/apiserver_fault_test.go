package steps_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

const onePodFeature = `Feature: one pod
  Scenario: one pod
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: p
      spec:
        containers:
          - name: c
            image: i
      """
    Then the pod "p" should be as submitted
`

// TestAPIServerFaults: when the API server hangs (SIGSTOP), a step fails
// once its time bound is up instead of hanging the run; when it is gone
// (SIGKILL), a step fails at once with a message saying the connection was
// refused (or, for one kept alive, reset); either way Stop leaves no process behind.
func TestAPIServerFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	timeouts := harness.DefaultTimeouts
	timeouts.Step = 3 * time.Second
	w, err := harness.Start(context.Background(), harness.Options{Timeouts: timeouts})
	if err != nil {
		t.Fatal(err)
	}
	children := controlPlaneChildren()
	var apiserver int
	for _, pid := range children {
		if comm(pid) == "kube-apiserver" {
			apiserver = pid
		}
	}
	if apiserver == 0 {
		t.Fatal("no kube-apiserver child")
	}
	feature := filepath.Join(t.TempDir(), "one.feature")
	if err := os.WriteFile(feature, []byte(onePodFeature), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(what string) string {
		t.Helper()
		var out bytes.Buffer
		start := time.Now()
		status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{feature}, Format: "progress", Output: &out})
		took := time.Since(start)
		if status == 0 {
			t.Errorf("%s: the scenario passed", what)
		}
		if took > 30*time.Second {
			t.Errorf("%s: the run took %s", what, took)
		}
		t.Logf("%s: failed after %s", what, took.Round(time.Millisecond))
		return out.String()
	}

	_ = syscall.Kill(apiserver, syscall.SIGSTOP)
	if out := run("API server hung"); !strings.Contains(out, "context deadline exceeded") {
		t.Errorf("the hung API server is not reported as a deadline:\n%s", out)
	}
	_ = syscall.Kill(apiserver, syscall.SIGKILL)
	_ = syscall.Kill(apiserver, syscall.SIGCONT)
	for i := 0; alive(apiserver) && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	// A new connection is refused; one kept alive from before is reset.
	if out := run("API server killed"); !strings.Contains(out, "connection refused") && !strings.Contains(out, "connection reset by peer") {
		t.Errorf("the killed API server is not reported as refusing or resetting connections:\n%s", out)
	}

	stopped := make(chan error, 1)
	go func() { stopped <- w.Stop() }()
	select {
	case <-stopped:
	case <-time.After(60 * time.Second):
		t.Fatal("Stop hangs with the API server gone")
	}
	for _, pid := range children {
		for i := 0; alive(pid) && i < 200; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d (%s) still runs after Stop", pid, comm(pid))
		}
	}
}

// comm is a process's command name.
func comm(pid int) string {
	b, _ := os.ReadFile(filepath.Join("/proc", itoa(pid), "comm"))
	return strings.TrimSpace(string(b))
}
