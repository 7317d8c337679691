package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"presetsim.dev/presetsim/internal/app"
	"presetsim.dev/presetsim/outcome"
)

// childEnv makes the test binary act as the presetsim command, so the tests
// below can run it as a separate process and interrupt it.
const childEnv = "PRESETSIM_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		app.Main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var controlPlane = []string{"etcd", "kube-apiserver", "kube-controller-manager"}

func TestNoLeftoverProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	tests := []struct {
		name      string
		interrupt syscall.Signal // 0: let the run finish
		after     string         // the output line start after which to send it
		wantCode  int
	}{
		{name: "run finishes", wantCode: 0},
		{name: "Ctrl-C during start-up", interrupt: syscall.SIGINT, after: "control plane up", wantCode: 130},
		{name: "Ctrl-C while the suite runs", interrupt: syscall.SIGINT, after: "ready in", wantCode: 130},
		{name: "SIGTERM while the suite runs", interrupt: syscall.SIGTERM, after: "ready in", wantCode: 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "run", "--tags", "@R2.4", "../../features/simple.feature")
			cmd.Env = append(os.Environ(), childEnv+"=1")
			var out syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Record the control-plane processes while they run.
			pids := map[string]int{}
			deadline := time.Now().Add(5 * time.Minute)
			for len(pids) < len(controlPlane) && time.Now().Before(deadline) && !exited(cmd.Process.Pid) {
				for name, pid := range children(cmd.Process.Pid) {
					pids[name] = pid
				}
				time.Sleep(20 * time.Millisecond)
			}
			if len(pids) < len(controlPlane) {
				_ = cmd.Process.Kill()
				t.Fatalf("saw only %v of the control plane start; output:\n%s", pids, out.String())
			}
			if tt.interrupt != 0 {
				for !strings.Contains("\n"+out.String(), "\n"+tt.after) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if err := cmd.Process.Signal(tt.interrupt); err != nil {
					t.Fatal(err)
				}
			}
			err := cmd.Wait()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d; output:\n%s", code, tt.wantCode, out.String())
			}
			for name, pid := range pids {
				if running(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("%s (pid %d) is still running after presetsim exited", name, pid)
				}
			}
		})
	}
}

// TestKilledRunIsReapedByTheNext kills a run with SIGKILL, which no program
// can catch, while its suite runs: etcd and kube-apiserver, in process
// groups of their own, outlive it, and so do its directories (etcd data,
// certificates and keys, kubeconfigs), private meanwhile. The next run must
// stop the processes and remove the directories, and say so.
func TestKilledRunIsReapedByTheNext(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two control planes; skipped with -short")
	}
	// The runs' process records go to their own cache directory, and their
	// temporary directories to their own TMPDIR, so that no other test's
	// run is touched.
	tmp := t.TempDir()
	env := append(os.Environ(), childEnv+"=1", "XDG_CACHE_HOME="+t.TempDir(), "TMPDIR="+tmp)
	first := exec.Command(os.Args[0], "run", "--tags", "@R2.4", "../../features/simple.feature")
	first.Env = env
	var out syncBuffer
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(out.String(), "ready in") && time.Now().Before(deadline) && !exited(first.Process.Pid) {
		time.Sleep(20 * time.Millisecond)
	}
	left := children(first.Process.Pid)
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	t.Cleanup(func() {
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if left["etcd"] == 0 || !running(left["etcd"]) {
		t.Fatalf("etcd did not outlive the killed run (processes %v); the test proves nothing. Output:\n%s", left, out.String())
	}
	dirs, _ := os.ReadDir(tmp)
	if len(dirs) == 0 {
		t.Fatalf("the killed run left no directory in TMPDIR; the test proves nothing")
	}
	for _, d := range dirs {
		if info, err := d.Info(); err == nil && info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s, left by the killed run, is readable by others (%v)", d.Name(), info.Mode())
		}
	}

	second := exec.Command(os.Args[0], "run", "--tags", "@R2.4", "../../features/simple.feature")
	second.Env = env
	output, err := second.CombinedOutput()
	if err != nil {
		t.Fatalf("the next run failed: %v\n%s", err, output)
	}
	if !strings.Contains(string(output), "an earlier run left running when it was killed") {
		t.Errorf("the next run did not say it stopped the leftovers; output:\n%s", output)
	}
	for name, pid := range left {
		if running(pid) {
			t.Errorf("%s (pid %d), left by the killed run, still runs after the next run", name, pid)
		}
	}
	if !strings.Contains(string(output), "directories an earlier run left when it was killed") {
		t.Errorf("the next run did not say it removed the leftover directories; output:\n%s", output)
	}
	if after, _ := os.ReadDir(tmp); len(after) > 0 {
		var names []string
		for _, d := range after {
			names = append(names, d.Name())
		}
		t.Errorf("left in TMPDIR after the next run: %v", names)
	}
}

// children returns the control-plane processes whose parent is pid.
func children(pid int) map[string]int {
	out := map[string]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, _, ppid, ok := stat(child)
		if !ok || ppid != pid {
			continue
		}
		for _, name := range controlPlane {
			// The kernel keeps only the first 15 bytes of a command name.
			if comm == name[:min(len(name), 15)] {
				out[name] = child
			}
		}
	}
	return out
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	_, state, _, ok := stat(pid)
	return ok && state != "Z" && state != "X"
}

func exited(pid int) bool { return !running(pid) }

// stat reads the command name, state and parent of a process from /proc.
func stat(pid int) (comm, state string, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", 0, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", "", 0, false
	}
	fields := strings.Fields(s[end+1:])
	if len(fields) < 2 {
		return "", "", 0, false
	}
	ppid, err = strconv.Atoi(fields[1])
	return s[open+1 : end], fields[0], ppid, err == nil
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestInterruptedRunWritesWhatFinished: SIGINT in the middle of a run
// exits 130 and leaves reports that hold the scenarios that finished, say
// that the run was interrupted, and read back as a report.
func TestInterruptedRunWritesWhatFinished(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--concurrency", "1", "--report-dir", dir, "../../features")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A few scenarios finish (a dot per step), most have not.
	deadline := time.Now().Add(3 * time.Minute)
	for strings.Count(out.String(), ".") < 40 && time.Now().Before(deadline) && !exited(cmd.Process.Pid) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("the interrupted run: %v, want exit status 130; output:\n%s", err, out.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatalf("no summary after the interrupt: %v; output:\n%s", err, out.String())
	}
	r, err := outcome.ReadReport(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Interrupted == "" || len(r.Scenarios) == 0 || len(r.Scenarios) >= 80 {
		t.Errorf("summary: interrupted %q with %d scenarios; want it said, with some scenarios and not all", r.Interrupted, len(r.Scenarios))
	}
	for _, name := range []string{"junit.xml", "report.html"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s after the interrupt: %v", name, err)
		}
	}
}
