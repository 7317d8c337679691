package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"
)

// TestUpWithKubectl drives `presetsim up` as a person would: start it, use
// kubectl (built from the same pinned Kubernetes) against it, press Ctrl-C.
func TestUpWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	bin, err := envtest.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cmd := exec.Command(os.Args[0], "up", "--kubeconfig", kubeconfig)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(out.String(), "Press Ctrl-C") {
		if time.Now().After(deadline) || exited(cmd.Process.Pid) {
			t.Fatalf("presetsim up did not come up; output:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "export KUBECONFIG="+kubeconfig) {
		t.Errorf("no export line for %s in:\n%s", kubeconfig, out.String())
	}
	pids := children(cmd.Process.Pid)

	kubectl := func(stdin string, args ...string) (string, error) {
		c := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
		c.Stdin = strings.NewReader(stdin)
		b, err := c.CombinedOutput()
		return string(b), err
	}
	must := func(stdin string, args ...string) string {
		t.Helper()
		s, err := kubectl(stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, s)
		}
		return s
	}

	// The harness's readiness probe leaves no preset behind: the user sees
	// only theirs.
	if got := must("", "get", "podpresets", "--all-namespaces", "-o", "name"); strings.TrimSpace(got) != "" {
		t.Errorf("kubectl get podpresets shows presets nobody applied:\n%s", got)
	}

	// The module sees presets through an informer: a pod applied in the
	// same breath as its preset can be admitted before the preset's watch
	// event arrives, as with the in-tree PodPreset. Wait until a dry run
	// shows the preset, then apply the pod.
	must(preset, "apply", "-f", "-")
	for seen := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if dry, _ := kubectl(pod("probe", ""), "create", "--dry-run=server", "-o", "yaml", "-f", "-"); strings.Contains(dry, "DB_PORT") {
			break
		}
		if time.Since(seen) > 10*time.Second {
			t.Fatal("the preset did not reach the module within 10s")
		}
	}
	must(pod("website", ""), "apply", "-f", "-")
	if got := must("", "get", "pod", "website", "-o", "yaml"); !strings.Contains(got, "DB_PORT") || !strings.Contains(got, "podpreset.admission.kubernetes.io/podpreset-allow-database") {
		t.Errorf("kubectl get pod -o yaml shows no injection:\n%s", got)
	}

	preview := must(pod("preview", ""), "create", "--dry-run=server", "-o", "yaml", "-f", "-")
	if !strings.Contains(preview, "DB_PORT") {
		t.Errorf("the server-side dry run shows no injection:\n%s", preview)
	}
	if s, err := kubectl("", "get", "pod", "preview"); err == nil {
		t.Errorf("the dry-run pod was stored:\n%s", s)
	}

	applied := must(pod("clash", `      env: [{name: DB_PORT, value: "5432"}]`), "apply", "-f", "-")
	if !strings.Contains(applied, "Conflict on pod preset allow-database: duplicate env DB_PORT") {
		t.Errorf("kubectl apply shows no conflict warning:\n%s", applied)
	}
	var described string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if described = must("", "describe", "pod", "clash"); strings.Contains(described, "PodPresetConflict") {
			break
		}
	}
	if !strings.Contains(described, "PodPresetConflict") || !strings.Contains(described, "duplicate env DB_PORT") {
		t.Errorf("kubectl describe shows no conflict event:\n%s", described)
	}
	if events := must("", "get", "events", "--field-selector", "involvedObject.name=preview"); strings.Contains(events, "PodPresetConflict") {
		t.Errorf("the dry run recorded an event:\n%s", events)
	}

	// A deleted namespace goes away, contents and all, as in a real
	// cluster: kubectl waits for it (the namespace controller empties it,
	// the simulated kubelet confirms its bound pod's deletion).
	must("", "create", "namespace", "doomed")
	must(pod("bound", ""), "apply", "-n", "doomed", "-f", "-")
	must("", "wait", "-n", "doomed", "--for=condition=Ready", "pod/bound", "--timeout=60s")
	must("", "create", "configmap", "left", "-n", "doomed", "--from-literal=k=v")
	if s, err := kubectl("", "delete", "namespace", "doomed", "--wait", "--timeout=60s"); err != nil {
		ns, _ := kubectl("", "get", "namespace", "doomed", "-o", "yaml")
		t.Errorf("kubectl delete namespace did not finish: %v\n%s\n%s", err, s, ns)
	}
	if s, err := kubectl("", "get", "namespace", "doomed"); err == nil {
		t.Errorf("the namespace is still there:\n%s", s)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil {
		t.Errorf("presetsim up after Ctrl-C: %v; output:\n%s", err, out.String())
	}
	if len(pids) < len(controlPlane) {
		t.Errorf("saw only %v of the control plane", pids)
	}
	for name, pid := range pids {
		if running(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s (pid %d) is still running after Ctrl-C", name, pid)
		}
	}
	if _, err := os.Stat(kubeconfig); err == nil {
		t.Errorf("the kubeconfig %s was left behind", kubeconfig)
	}
}

const preset = `apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata:
  name: allow-database
spec:
  selector:
    matchLabels:
      role: frontend
  env:
    - name: DB_PORT
      value: "6379"
`

func pod(name, extra string) string {
	s := `apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  labels:
    role: frontend
spec:
  containers:
    - name: web
      image: ecorp/website
`
	if extra != "" {
		s += extra + "\n"
	}
	return s
}
