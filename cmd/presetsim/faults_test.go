package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/steps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/harness"
	externalimpl "presetsim.dev/presetsim/internal/implementation/external"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/internal/suitetest"
	"presetsim.dev/presetsim/internal/webhook"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// serveChild returns the pid of this test's `presetsim serve` child that
// listens on addr (its --addr flag: each subtest's is its own, so a child
// of another subtest, or a process the pid was reused for, never matches).
func serveChild(t *testing.T, addr string) int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		_, _, ppid, ok := stat(pid)
		if !ok || ppid != os.Getpid() {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(cmdline), "\x00serve\x00") && strings.Contains(string(cmdline), "\x00--addr\x00"+addr+"\x00") {
			return pid
		}
	}
	t.Fatalf("no serve child process listening on %s", addr)
	return 0
}

// stopped sends SIGSTOP and waits until the process is stopped (state T),
// so that a check that follows meets a hung webhook and not a running one.
func stopped(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP %d: %v", pid, err)
	}
	for i := 0; i < 100; i++ {
		if _, state, _, ok := stat(pid); ok && state == "T" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, state, _, _ := stat(pid)
	t.Fatalf("the serve child %d is not stopped after SIGSTOP (state %q)", pid, state)
}

// TestWebhookFaults checks R5.2 with the reference served out of process:
// when the webhook hangs (SIGSTOP: connections are accepted, never
// answered) and when its process is killed, failurePolicy Fail refuses
// pods with a message naming the webhook, and Ignore creates them
// unmutated, each within a bounded time (the 2 s webhook timeout).
func TestWebhookFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts control planes; skipped with -short")
	}
	for _, policy := range []string{"Fail", "Ignore"} {
		t.Run(policy, func(t *testing.T) {
			dir := t.TempDir()
			certs, err := webhook.NewCertificates("127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			certPEM, keyPEM, _ := certs.ServingPEM()
			certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
			_ = os.WriteFile(certFile, certPEM, 0o600)
			_ = os.WriteFile(keyFile, keyPEM, 0o600)
			addr := freeAddr(t)
			t.Setenv(childEnv, "1")
			ctx := context.Background()
			w, err := harness.Start(ctx, harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: externalimpl.New(externalimpl.Options{
				URL: "https://" + addr + "/mutate-pods", CABundle: certs.CABundle, FailurePolicy: policy, TimeoutSeconds: 2,
				Command: []string{os.Args[0], "serve", "--kubeconfig", externalimpl.KubeconfigPlaceholder, "--addr", addr, "--cert", certFile, "--key", keyFile},
			})})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ns, err := scenario.New(w).Namespace(ctx, "faults")
			if err != nil {
				t.Fatal(err)
			}
			pp := &v1alpha1.PodPreset{
				TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
				ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns},
				Spec: v1alpha1.PodPresetSpec{Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}},
					Env: []corev1.EnvVar{{Name: "DB", Value: "1"}}},
			}
			u, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(pp)
			if _, err := suitetest.API(t, w).Dynamic.Resource(v1alpha1.GroupVersionResource()).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: u}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := w.WaitForPreset(ctx, ns, "db", ""); err != nil {
				t.Fatal(err)
			}
			create := func(name string) (*corev1.Pod, error, time.Duration) {
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "a"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
				start := time.Now()
				got, err := suitetest.API(t, w).Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
				return got, err, time.Since(start)
			}
			if got, err, _ := create("healthy"); err != nil || got.Annotations[merge.AnnotationKey("db")] == "" {
				t.Fatalf("with the webhook up, the pod was not mutated: %v", err)
			}
			check := func(fault, name string) {
				t.Helper()
				got, err, took := create(name)
				if took > 10*time.Second {
					t.Errorf("%s: the create took %s", fault, took)
				}
				switch policy {
				case "Fail":
					if err == nil || !strings.Contains(err.Error(), "failed calling webhook") {
						t.Errorf("%s, failurePolicy Fail: got %v, want a refusal naming the webhook", fault, err)
					}
				case "Ignore":
					if err != nil {
						t.Errorf("%s, failurePolicy Ignore: the pod was refused: %v", fault, err)
					} else if _, mutated := got.Annotations[merge.AnnotationKey("db")]; mutated {
						t.Errorf("%s, failurePolicy Ignore: the pod was mutated", fault)
					}
				}
				t.Logf("%s, %s: %s, %v", fault, policy, took.Round(time.Millisecond), err)
			}
			pid := serveChild(t, addr)
			stopped(t, pid)
			check("hung webhook", "while-hung")
			_ = syscall.Kill(pid, syscall.SIGKILL)
			for i := 0; running(pid) && i < 100; i++ {
				time.Sleep(20 * time.Millisecond)
			}
			check("killed webhook", "while-killed")
			// Whatever the failure policy made of them, the requests the
			// webhook did not answer are known (R5.3), the one it did is not.
			failed := strings.Join(w.FailedRequests(ns), "\n")
			for _, name := range []string{"while-hung", "while-killed"} {
				if !strings.Contains(failed, strconv.Quote(name)) {
					t.Errorf("failurePolicy %s: the request for %s is not among the failed ones:\n%s", policy, name, failed)
				}
			}
			if strings.Contains(failed, strconv.Quote("healthy")) {
				t.Errorf("failurePolicy %s: the answered request for healthy counts as failed:\n%s", policy, failed)
			}
			// What a failure's message adds says how the process ended:
			// the harness notes it once its wait for the process returns,
			// which may come after the request the kill failed.
			const exited = "the webhook's process exited (signal: killed)"
			out := w.ModuleOutput()
			for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out, exited) && time.Now().Before(deadline); out = w.ModuleOutput() {
				time.Sleep(20 * time.Millisecond)
			}
			if !strings.Contains(out, exited) {
				t.Errorf("failurePolicy %s: the webhook's output for a failure does not say that its process was killed:\n%s", policy, out)
			}
		})
	}
}

// TestCrashHiddenByIgnore: a webhook that panics on a conflict, registered
// with failurePolicy: Ignore, lets the conflicting pods through untouched,
// which looks right; the run fails them on R5.3, named first, with the
// webhook's own words.
func TestCrashHiddenByIgnore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	addr := freeAddr(t)
	cmd := exec.Command(os.Args[0], "run", "--webhook-failure-policy", "Ignore",
		"--webhook-url", "https://"+addr+"/mutate-pods",
		"--webhook-command", os.Args[0]+" serve --module mutant/panics-on-conflict --kubeconfig {kubeconfig} --addr "+addr+" --cert {cert} --key {key}",
		"../../features/conflict.feature")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("run against a webhook that panics on conflicts: %v, want exit status 1\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{steps.AnsweredCheck, "→ R5.3", "panicked"} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
}
