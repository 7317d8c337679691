package steps_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

// TestPanickingStep: a step that panics fails its scenario with the panic's
// message, the other scenarios still run, and stopping the World leaves no
// control-plane process behind.
func TestPanickingStep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	before := controlPlaneChildren()
	if len(before) == 0 {
		t.Fatal("found no control-plane child process to watch")
	}
	feature := filepath.Join(t.TempDir(), "panic.feature")
	if err := os.WriteFile(feature, []byte("Feature: panics\n  Scenario: a step panics\n    When a step panics\n"+onePodScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	init := steps.Initializer(w, nil)
	status := godog.TestSuite{
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			init(sc)
			sc.Step(`^a step panics$`, func() error { panic("boom in a step") })
		},
		Options: &godog.Options{Format: "progress", Paths: []string{feature}, Output: &out, Strict: true},
	}.Run()
	if status == 0 {
		t.Fatalf("the suite passed with a panicking step")
	}
	if !strings.Contains(out.String(), "boom in a step") {
		t.Errorf("the panic's message is not reported:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "1 passed") {
		t.Errorf("the scenario after the panic did not pass:\n%s", out.String())
	}
	if err := w.Stop(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range before {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("control-plane process %d is still running after Stop", pid)
		}
	}
}

// controlPlaneChildren returns the pids of this process's etcd and
// kube-apiserver children.
func controlPlaneChildren() []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		comm, fields := s[open+1:close], strings.Fields(s[close+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == os.Getpid() && (comm == "etcd" || comm == "kube-apiserver") {
			out = append(out, pid)
		}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// alive reports whether any thread of pid runs: a process is gone, its
// sockets closed, only when every thread has exited. After a SIGKILL the
// main thread can be a zombie while the others still exit, holding the
// process's files (an API server restarted then finds its port in use).
func alive(pid int) bool {
	tasks, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", task.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 0 && fields[0] != "Z" && fields[0] != "X" {
			return true
		}
	}
	return false
}
