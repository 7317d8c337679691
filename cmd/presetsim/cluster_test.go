package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend/existing"
	"presetsim.dev/presetsim/harness/implementation/installed"
	"presetsim.dev/presetsim/steps"
)

// TestSuiteOnExistingCluster runs the features on the cluster backend
// against `presetsim up` (a live API server with the reference installed for
// every namespace): everything passes or is unsupported (node steps), and
// afterwards the run's namespaces are being deleted and no cluster-scoped
// object was added.
func TestSuiteOnExistingCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cmd := exec.Command(os.Args[0], "up", "--kubeconfig", kubeconfig)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	}()
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(out.String(), "Press Ctrl-C") {
		if time.Now().After(deadline) || exited(cmd.Process.Pid) {
			t.Fatalf("presetsim up did not come up; output:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: existing.New(existing.Options{Kubeconfig: kubeconfig}), Implementation: installed.New(), Progress: os.Stderr})
	if err != nil {
		t.Fatalf("unable to start on the existing cluster: %v", err)
	}
	client := w.Client
	counts := func() (int, int) {
		hooks, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(hooks.Items), len(nodes.Items)
	}
	hooksBefore, nodesBefore := counts()

	status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features"}, Format: "progress", TestingT: t})
	if status != 0 {
		t.Errorf("the suite failed on the existing cluster (status %d)", status)
	}
	unsupported := 0
	for _, s := range timings.List() {
		if s.Unsupported != "" {
			unsupported++
		}
	}
	t.Logf("%d scenarios, %d unsupported on the cluster backend", len(timings.List()), unsupported)

	runID := w.RunID
	if err := w.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if hooks, nodes := counts(); hooks != hooksBefore || nodes != nodesBefore {
		t.Errorf("cluster-scoped objects changed: webhook configurations %d → %d, nodes %d → %d", hooksBefore, hooks, nodesBefore, nodes)
	}
	list, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: harness.RunLabel + "=" + runID})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 {
		t.Errorf("the run created no labelled namespaces")
	}
	for _, ns := range list.Items {
		if ns.DeletionTimestamp == nil {
			t.Errorf("namespace %s was not deleted", ns.Name)
		}
	}
}
