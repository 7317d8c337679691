package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// TestRunTimeoutWritesWhatFinished: a run whose --timeout is reached stops
// as an interrupted one does, with exit status 124, and its reports say
// how many of the scenarios selected did not run, and that it did not
// pass: the summary, the JUnit (a test case in error), and report verdict,
// which says "finished: false" and exits 1.
func TestRunTimeoutWritesWhatFinished(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--backend", "offline", "--concurrency", "1", "--timeout", "300ms", "--report-dir", dir, "../../features")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != interrupt.TimeoutCode {
		t.Fatalf("the run: %v, want exit status %d; output:\n%s", err, interrupt.TimeoutCode, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatalf("no summary once the time was up: %v; output:\n%s", err, out)
	}
	r, err := outcome.ReadReport(data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Interrupted, "exit status 124") || !strings.Contains(r.Interrupted, "did not run") {
		t.Errorf("summary: interrupted %q, want the exit status and how many did not run", r.Interrupted)
	}
	if r.Passed || !strings.HasPrefix(r.Verdict(), "NOT FINISHED") {
		t.Errorf("summary: passed %v, verdict %q; a run that did not finish has not passed", r.Passed, r.Verdict())
	}
	junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(junit), `<error message="the run did not finish: exit status 124`) {
		t.Errorf("junit.xml has no error saying the run did not finish:\n%s", junit)
	}
	verdict := exec.Command(os.Args[0], "report", "verdict", dir)
	verdict.Env = append(os.Environ(), childEnv+"=1")
	text, err := verdict.Output()
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(text), "passed: false\nfinished: false (exit status 124") {
		t.Errorf("report verdict: %v, want exit status 1 and the run not finished; it printed:\n%s", err, text)
	}
	// The Cucumber report holds the scenarios that finished too.
	data, err = os.ReadFile(filepath.Join(dir, "cucumber.json"))
	if err != nil {
		t.Fatalf("no cucumber.json once the time was up: %v", err)
	}
	var features []struct {
		Elements []struct {
			Name string `json:"name"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(data, &features); err != nil {
		t.Fatalf("cucumber.json: %v", err)
	}
	scenarios := 0
	for _, f := range features {
		scenarios += len(f.Elements)
	}
	if scenarios != len(r.Scenarios) {
		t.Errorf("cucumber.json holds %d scenarios, the summary %d", scenarios, len(r.Scenarios))
	}
}

// TestInterruptedFuzzWritesWhatItDid: SIGINT in the middle of a fuzz run
// exits 130 and leaves fuzz.json with the cases done, saying it was
// interrupted.
func TestInterruptedFuzzWritesWhatItDid(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "fuzz", "--backend", "offline", "--cases", "1000000", "--seed", "3", "--report-dir", dir)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "fuzz: seed 3") && time.Now().Before(deadline) && !exited(cmd.Process.Pid) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second) // some cases done
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("the interrupted fuzz run: %v, want exit status 130; output:\n%s", err, out.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "fuzz.json"))
	if err != nil {
		t.Fatalf("no fuzz.json after the interrupt: %v; output:\n%s", err, out.String())
	}
	var sum fuzz.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Interrupted == "" || sum.Cases >= 1000000 {
		t.Errorf("fuzz.json: interrupted %q after %d cases, want it said, with the cases done", sum.Interrupted, sum.Cases)
	}
}

// TestRequire: a run says what it checked; --require makes a run that did
// not check what it asks for exit 3 (here a --tags run of one rule, and a
// profile whose propagation window is longer than the run waits), with the
// line that says what was not checked, while the same run without it exits
// 0 and prints the line all the same.
func TestRequire(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(long, []byte("apiVersion: presetsim.dev/v1alpha1\nkind: Profile\nmetadata:\n  name: long\nspec:\n  referenceCRD: true\n  behaviour:\n    propagation: 1h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a tag, not required", []string{"--tags", "@R2.5"}, 0, "checked:             1 of 34 rules; not checked: 33 not selected"},
		{"a tag, all required", []string{"--tags", "@R2.5", "--require", "all"}, 3, "--require all is not met: 33 rules not checked: 33 not selected"},
		{"a tag, it required", []string{"--tags", "@R2.5", "--require", string(rule.R2_5)}, 0, "checked:             1 of 34 rules"},
		{"a long propagation window", []string{"--profile", long, "--require", string(rule.R6_1), "../../features/history.feature"}, 3,
			"1 declared away (R6.1: propagation: 1h0m0s, longer than the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], append([]string{"run", "--backend", "offline"}, tc.args...)...)
			cmd.Env = append(os.Environ(), childEnv+"=1")
			out, err := cmd.CombinedOutput()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(string(out), tc.want) {
				t.Errorf("exit status %d, want %d, and %q in the output:\n%s", code, tc.code, tc.want, out)
			}
		})
	}
}
