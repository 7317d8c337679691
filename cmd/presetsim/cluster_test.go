package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/backends/cluster"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/implementation/installed"
	"presetsim.dev/presetsim/internal/suitetest"
	"presetsim.dev/presetsim/outcome"
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
	kubeconfig := startUp(t)

	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: cluster.New(cluster.Options{Kubeconfig: kubeconfig}), Implementation: installed.New(), Progress: os.Stderr})
	if err != nil {
		t.Fatalf("unable to start on the existing cluster: %v", err)
	}
	client := suitetest.API(t, w).Client
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

// startUp starts `presetsim up` (this test binary acting as the command)
// for the test, stopped with Ctrl-C when the test ends, and returns its
// kubeconfig.
func startUp(t *testing.T) string {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cmd := exec.Command(os.Args[0], "up", "--kubeconfig", kubeconfig)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(out.String(), "Press Ctrl-C") {
		if time.Now().After(deadline) || exited(cmd.Process.Pid) {
			t.Fatalf("presetsim up did not come up; output:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return kubeconfig
}

// TestRunsLeaveNothingBehind runs features 30 times, one run after
// another, against one `presetsim up`, as a CI job that reuses a cluster
// would: every run's verdicts are the first run's, and each run leaves no
// pod in its namespaces (the cluster backend deletes what it created,
// object by object, before deleting the namespaces) and none on the
// simulated nodes, whose capacity (110 pods each) leftovers would fill.
func TestRunsLeaveNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane and runs the features 30 times; skipped with -short")
	}
	const runs = 30
	features := []string{"../../features/simple.feature", "../../features/replicaset.feature", "../../features/objects.feature"}
	kubeconfig := startUp(t)
	ctx := context.Background()
	var first map[string]outcome.Outcome
	for i := 1; i <= runs; i++ {
		w, err := harness.Start(ctx, harness.Options{Backend: cluster.New(cluster.Options{Kubeconfig: kubeconfig}), Implementation: installed.New()})
		if err != nil {
			t.Fatalf("run %d: unable to start on the cluster: %v", i, err)
		}
		_, timings := steps.Run(w, steps.SuiteOptions{Paths: features, Format: "progress", Output: io.Discard})
		verdicts := map[string]outcome.Outcome{}
		for _, s := range timings.List() {
			verdicts[s.Scenario] = s.Outcome()
		}
		client, runID := suitetest.API(t, w).Client, w.RunID
		if err := w.Stop(); err != nil {
			t.Errorf("run %d: stop: %v", i, err)
		}
		if first == nil {
			first = verdicts
			for name, v := range verdicts {
				if v != outcome.Passed {
					t.Errorf("run 1: %s %s", name, v)
				}
			}
		} else if diff := cmp.Diff(first, verdicts); diff != "" {
			t.Fatalf("run %d: the verdicts changed (-run 1 +run %d):\n%s", i, i, diff)
		}
		// Right after Stop: the run's namespaces may still be terminating,
		// but nothing of the run is left in them.
		namespaces, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: harness.RunLabel + "=" + runID})
		if err != nil {
			t.Fatal(err)
		}
		for _, ns := range namespaces.Items {
			pods, err := client.CoreV1().Pods(ns.Name).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pods.Items {
				t.Errorf("run %d left pod %s/%s (node %q)", i, ns.Name, p.Name, p.Spec.NodeName)
			}
		}
		all, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range all.Items {
			if p.Spec.NodeName != "" {
				t.Errorf("after run %d, pod %s/%s still holds a place on node %s", i, p.Namespace, p.Name, p.Spec.NodeName)
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d runs of %d scenarios each, the same verdicts, nothing left behind", runs, len(first))
}
