package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"
)

// TestAuditAndExplainOnUp drives `presetsim audit` and `presetsim explain
// pod` as a person would, against `presetsim up` with kubectl: a preset
// created after a Deployment's pods is drift (exit 3, the table, the fix);
// running the fix it prints clears it (exit 0); explain says why the new
// pods have the preset and what their annotations record. The guide's
// transcripts come from this scenario.
func TestAuditAndExplainOnUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	bin, err := envtest.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := startUp(t)
	kubectl := func(stdin string, args ...string) string {
		t.Helper()
		c := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
		c.Stdin = strings.NewReader(stdin)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	presetsim := func(args ...string) (string, int) {
		t.Helper()
		c := exec.Command(os.Args[0], append(args, "--kubeconfig", kubeconfig)...)
		c.Env = append(os.Environ(), childEnv+"=1")
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		err := c.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return out.String(), exit.ExitCode()
		case err != nil:
			t.Fatal(err)
		}
		return out.String(), 0
	}

	kubectl(deployment, "apply", "-f", "-")
	kubectl("", "rollout", "status", "deployment/web", "--timeout=60s")
	kubectl(latePreset, "apply", "-f", "-")
	for start := time.Now(); !strings.Contains(kubectl(pod("probe", ""), "create", "--dry-run=server", "-o", "yaml", "-f", "-"), "LOG_SINK"); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the preset did not reach the webhook within 10s")
		}
	}

	out, code := presetsim("audit")
	t.Logf("presetsim audit:\n%s", out)
	for _, want := range []string{"Deployment/web", "missing logging (2)", "fix: kubectl rollout restart deployment/web -n default"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit output lacks %q", want)
		}
	}
	if code != 3 {
		t.Errorf("audit exit status %d, want 3 (drift)", code)
	}

	kubectl("", "rollout", "restart", "deployment/web")
	kubectl("", "rollout", "status", "deployment/web", "--timeout=60s")
	var after string
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		// The old pods go after the new ones are ready.
		if after, code = presetsim("audit"); code == 0 || time.Since(start) > 30*time.Second {
			break
		}
	}
	t.Logf("presetsim audit, after the fix:\n%s", after)
	if code != 0 || !strings.Contains(after, "Deployment/web") {
		t.Errorf("after the fix: exit status %d, output:\n%s", code, after)
	}

	name := strings.TrimSpace(kubectl("", "get", "pods", "-l", "app=web", "-o", "jsonpath={.items[0].metadata.name}"))
	out, code = presetsim("explain", "pod", name)
	t.Logf("presetsim explain pod %s:\n%s", name, out)
	for _, want := range []string{"logging (namespace default): applied: the selector matches", "Recorded at admission:", "logging at resourceVersion", "the preset as it is now"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q", want)
		}
	}
	if code != 0 {
		t.Errorf("explain exit status %d", code)
	}
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web, role: frontend}
    spec:
      containers:
        - name: web
          image: ecorp/website
`

const latePreset = `apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata:
  name: logging
spec:
  selector:
    matchLabels: {role: frontend}
  env:
    - name: LOG_SINK
      value: "syslog"
`
