package steps_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

// onePodScenario creates one pod and compares it; the fault and panic tests
// put it in their features.
const onePodScenario = `  Scenario: one pod
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

const onePodFeature = "Feature: one pod\n" + onePodScenario

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
	w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{}), Timeouts: timeouts})
	if err != nil {
		t.Fatal(err)
	}
	children := controlPlaneChildren()
	apiserver := apiserverChild(t)
	feature := filepath.Join(t.TempDir(), "one.feature")
	if err := os.WriteFile(feature, []byte(onePodFeature), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(what string) string {
		t.Helper()
		start := time.Now()
		status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{feature}, Format: "progress", Output: io.Discard})
		took := time.Since(start)
		var out strings.Builder
		for _, tm := range timings.List() {
			if tm.Err != nil {
				out.WriteString(tm.Err.Error() + "\n")
			}
		}
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

// TestAPIServerRestart: the API server is killed and started again with the
// same command line, certificates and etcd, as a supervisor would restart
// it; the same World (its clients, the module's informer, the registered
// webhook) then runs a scenario that passes: the harness reconnects.
func TestAPIServerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Stop() }()
	apiserver := apiserverChild(t)
	args, env := procStrings(t, apiserver, "cmdline"), procStrings(t, apiserver, "environ")
	_ = syscall.Kill(apiserver, syscall.SIGKILL)
	for i := 0; alive(apiserver) && i < 100; i++ {
		time.Sleep(20 * time.Millisecond)
	}

	began := time.Now()
	restarted := restartAPIServer(t, w, args, env)
	// Stop does not know this process: the test stops it.
	defer restarted.stop()
	t.Logf("restarted API server ready after %s", time.Since(began).Round(time.Millisecond))

	feature := filepath.Join(t.TempDir(), "one.feature")
	if err := os.WriteFile(feature, []byte(presetFeature), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{feature}, Format: "progress", Output: &out}); status != 0 {
		t.Fatalf("after the restart the scenario failed:\n%s", out.String())
	}
}

// apiserverProcess is a kube-apiserver the test started itself.
type apiserverProcess struct {
	cmd    *exec.Cmd
	logs   *bytes.Buffer
	exited chan struct{}
}

func (p *apiserverProcess) stop() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// waitReady waits until the server's /readyz says ok through the World's
// client, for at most timeout, and not after the process has exited.
func (p *apiserverProcess) waitReady(w *harness.World, timeout time.Duration) bool {
	for began := time.Now(); time.Since(began) < timeout; time.Sleep(100 * time.Millisecond) {
		select {
		case <-p.exited:
			return false
		default:
		}
		api, _ := w.API() // envtest
		body, err := api.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil && string(body) == "ok" {
			return true
		}
	}
	return false
}

// restartAPIServer starts the API server again from its command line and
// environment, and returns once it is ready. The old server is gone (alive
// waits for all its threads, and with them its listener), but its port,
// free when envtest chose it, may meanwhile be taken by anything on this
// host, such as a bind(0) of a test running in parallel. A supervisor would
// then start the server again, and so does this, up to three times, logging
// which sockets held the port.
func restartAPIServer(t *testing.T, w *harness.World, args, env []string) *apiserverProcess {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p := &apiserverProcess{cmd: exec.Command(args[0], args[1:]...), logs: &bytes.Buffer{}, exited: make(chan struct{})}
		p.cmd.Env = env
		p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _ = p.cmd.Wait(); close(p.exited) }()
		if p.waitReady(w, time.Minute) {
			return p
		}
		p.stop() // before reading its output, which is written until it exits
		out := p.logs.String()
		if !strings.Contains(out, "address already in use") || attempt == 3 {
			t.Fatalf("the restarted API server exited or was not ready within a minute (attempt %d); its output ends with:\n%s", attempt, lastLines(out, 15))
		}
		t.Logf("attempt %d: %s\nsockets on that port: %s", attempt, lastLines(out, 1), portSockets(flagValue(args, "--secure-port")))
		time.Sleep(time.Second)
	}
}

// flagValue is the value of a --name=value argument.
func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// portSockets lists the IPv4 TCP sockets of this host with port as their
// local or remote port, as /proc/net/tcp shows them (hex addresses; st is
// the state: 01 established, 06 time-wait, 0A listen).
func portSockets(port string) string {
	n, err := strconv.Atoi(port)
	if err != nil {
		return "unknown port " + strconv.Quote(port)
	}
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return err.Error()
	}
	suffix := fmt.Sprintf(":%04X", n)
	var found []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 3 && (strings.HasSuffix(f[1], suffix) || strings.HasSuffix(f[2], suffix)) {
			found = append(found, fmt.Sprintf("local %s remote %s st %s", f[1], f[2], f[3]))
		}
	}
	if len(found) == 0 {
		return "none"
	}
	return strings.Join(found, "; ")
}

// presetFeature needs the module: its webhook is called by the restarted
// API server and its informer sees a preset created after the restart.
const presetFeature = `Feature: preset after restart
  Scenario: a preset created after the restart applies
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: p
      spec:
        selector:
          matchLabels:
            app: a
        env:
          - name: E
            value: "1"
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: p
        labels:
          app: a
      spec:
        containers:
          - name: c
            image: i
      """
    Then the pod "p" should have the annotations:
      | key                                       | value    |
      | podpreset.admission.kubernetes.io/podpreset-p | ${rv:p} |
`

// apiserverChild is the pid of this process's kube-apiserver child.
func apiserverChild(t *testing.T) int {
	t.Helper()
	for _, pid := range controlPlaneChildren() {
		if comm(pid) == "kube-apiserver" {
			return pid
		}
	}
	t.Fatal("no kube-apiserver child")
	return 0
}

// procStrings reads a NUL-separated file of /proc/<pid>.
func procStrings(t *testing.T, pid int, file string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", itoa(pid), file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
