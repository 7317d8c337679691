package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	externalimpl "presetsim.dev/presetsim/internal/implementation/external"
	"presetsim.dev/presetsim/internal/webhook"
	"presetsim.dev/presetsim/steps"
)

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// servingFiles makes certificates for 127.0.0.1 and writes the serving
// certificate and key into dir, for `presetsim serve --cert --key`.
func servingFiles(t *testing.T, dir string) (certs *webhook.Certificates, certFile, keyFile string) {
	t.Helper()
	certs, err := webhook.NewCertificates("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := certs.ServingPEM()
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certs, certFile, keyFile
}

// TestExternalStartedOutside: with KubeconfigOut (--webhook-kubeconfig-out)
// the run writes the webhook's kubeconfig and waits for a webhook that
// someone else starts from it — here `presetsim serve`, started by the test
// once the file is there, as a script on a container's host would; the
// seed feature passes against it, and the file is gone after the run.
func TestExternalStartedOutside(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	dir := t.TempDir()
	certs, certFile, keyFile := servingFiles(t, dir)
	addr, kubeconfig := freeAddr(t), filepath.Join(dir, "webhook-kubeconfig")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() {
		for {
			if _, err := os.Stat(kubeconfig); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				served <- ctx.Err()
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		cmd := exec.CommandContext(ctx, os.Args[0], "serve", "--kubeconfig", kubeconfig, "--addr", addr, "--cert", certFile, "--key", keyFile)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.CombinedOutput()
		if ctx.Err() == nil {
			err = fmt.Errorf("presetsim serve ended before the test did: %v\n%s", err, out)
		} else {
			err = nil
		}
		served <- err
	}()

	w, err := harness.Start(ctx, harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: externalimpl.New(externalimpl.Options{
		URL: "https://" + addr + "/mutate-pods", CABundle: certs.CABundle, KubeconfigOut: kubeconfig,
	})})
	if err != nil {
		t.Fatalf("unable to start with a webhook started outside the run: %v", err)
	}
	status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features/simple.feature"}, Format: "progress", TestingT: t})
	if status != 0 {
		t.Errorf("the seed feature failed against the webhook started outside the run (status %d)", status)
	}
	if err := w.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
		t.Errorf("the webhook's kubeconfig is still there after the run (stat: %v)", err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Error(err)
	}
}

// TestExternalRefusedIsASetupError: a webhook that refuses connections
// fails the start, once, with a message that says so.
func TestExternalRefusedIsASetupError(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	certs, err := webhook.NewCertificates("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: externalimpl.New(externalimpl.Options{
		URL: "https://" + freeAddr(t) + "/mutate-pods", CABundle: certs.CABundle, RefusedGrace: time.Second,
	})})
	if err == nil {
		_ = w.Stop()
		t.Fatal("the start succeeded with a webhook that refuses connections")
	}
	if !strings.Contains(err.Error(), "setup error") || !strings.Contains(err.Error(), "refuses connections") {
		t.Errorf("error %q does not say the webhook refuses connections", err)
	}
	t.Logf("failed after %s: %v", time.Since(began).Round(time.Millisecond), err)
}

// TestExternalOutputKept: a webhook process that dies at start-up fails the
// start with its last output in the message, and its whole output is in
// its log file.
func TestExternalOutputKept(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	certs, err := webhook.NewCertificates("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "webhook.log")
	script := `for i in $(seq 1 30); do echo "starting $i"; done; echo "panic: no certificate at /tls.crt" >&2; exit 2`
	w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: externalimpl.New(externalimpl.Options{
		URL: "https://" + freeAddr(t) + "/mutate-pods", CABundle: certs.CABundle,
		Command: []string{"sh", "-c", script}, LogFile: logFile,
	})})
	if err == nil {
		_ = w.Stop()
		t.Fatal("the start succeeded with a webhook whose process exits")
	}
	for _, want := range []string{"exited (exit status 2)", "panic: no certificate at /tls.crt", "starting 30", "all of it in " + logFile} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the start error does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "starting 1\n") {
		t.Errorf("the start error shows the whole output, not its last lines:\n%v", err)
	}
	kept, readErr := os.ReadFile(logFile)
	if readErr != nil {
		t.Fatal(readErr)
	}
	if !strings.Contains(string(kept), "starting 1\n") || !strings.Contains(string(kept), "panic: no certificate") {
		t.Errorf("the log file does not hold the whole output:\n%s", kept)
	}
}

// TestLoudExternalWebhook: a webhook that prints 1 GiB as fast as it can
// (a line without end, then a flood of short lines) beside serving costs
// presetsim a bounded amount of memory and disk, and the verdict is the
// same: the seed feature passes.
func TestLoudExternalWebhook(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	dir := t.TempDir()
	certs, certFile, keyFile := servingFiles(t, dir)
	addr, logFile := freeAddr(t), filepath.Join(dir, "webhook.log")
	t.Setenv(childEnv, "1") // "$0" below is this test binary acting as presetsim
	before := residentMiB(t)
	loud := `(head -c 805306368 /dev/zero | tr '\000' x; yes 'a short line' | head -c 268435456) & exec "$0" "$@"`
	w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{}),
		Implementation: externalimpl.New(externalimpl.Options{
			URL: "https://" + addr + "/mutate-pods", CABundle: certs.CABundle, LogFile: logFile,
			Command: []string{"sh", "-c", loud, os.Args[0], "serve", "--kubeconfig", externalimpl.KubeconfigPlaceholder,
				"--addr", addr, "--cert", certFile, "--key", keyFile},
		}),
	})
	if err != nil {
		t.Fatalf("unable to start with the external module: %v", err)
	}
	defer func() {
		if err := w.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features/simple.feature"}, Format: "progress", TestingT: t})
	if status != 0 {
		t.Errorf("the seed feature failed against a loud external reference (status %d)", status)
	}
	// Let the printer finish: 1 GiB through the pipe takes a few seconds.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(w.ModuleOutput(), "a short line") {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	grew := residentMiB(t) - before
	t.Logf("resident memory grew by %d MiB while the webhook printed 1 GiB", grew)
	if grew > 200 {
		t.Errorf("presetsim's resident memory grew by %d MiB while the webhook printed 1 GiB, want under 200", grew)
	}
	if info, err := os.Stat(logFile); err != nil || info.Size() > 65<<20 {
		t.Errorf("webhook.log: %v, want at most 64 MiB", err)
	} else if data, _ := os.ReadFile(logFile); !strings.Contains(string(data), "webhook.log is cut here") {
		t.Errorf("webhook.log (%d bytes) has no note where it was cut", info.Size())
	}
	if out := w.ModuleOutput(); strings.Count(out, "\n") > 25 || len(out) > 64<<10 {
		t.Errorf("the webhook's last output shown is %d bytes in %d lines, want its last 20 lines, each cut", len(out), strings.Count(out, "\n"))
	}
}

// residentMiB is this process's resident memory (VmRSS), in MiB.
func residentMiB(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status to read memory from: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			var kb int
			_, _ = fmt.Sscan(f[1], &kb)
			return kb >> 10
		}
	}
	t.Skip("no VmRSS in /proc/self/status")
	return 0
}

// TestRegistrationLeavesPodsOut: a webhook registered as it ships, with an
// objectSelector the seed feature's pods do not match, is never sent them.
// Each scenario that submits one fails on R5.4 first (the cause, not the
// pod left alone it leads to), naming the pods and what the registration
// selects; and the wait for each preset ends without measuring a
// propagation lag. A pod created again under the name of one that was sent
// is judged by its own creation: the second, unlabelled, fails R5.4 too.
func TestRegistrationLeavesPodsOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	dir := t.TempDir()
	w := startServedAsShipped(t, `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: podpresets
webhooks:
  - name: podpresets.example.com
    admissionReviewVersions: [v1]
    sideEffects: None
    clientConfig:
      service: {name: podpresets, namespace: system, path: /mutate-pods}
    objectSelector:
      matchLabels: {example.com/podpresets: enabled}
    rules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
`, "reference", time.Minute, harness.Options{})
	again := filepath.Join(dir, "again.feature")
	if err := os.WriteFile(again, []byte(`Feature: A pod created again
  Scenario: The same name, sent once
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: web, labels: {example.com/podpresets: enabled}}
      spec: {containers: [{name: web, image: nginx}]}
      """
    And I delete the pod "web"
    And I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec: {containers: [{name: web, image: nginx}]}
      """
    Then the pod "web" should have no PodPreset annotations
`), 0o644); err != nil {
		t.Fatal(err)
	}
	timings := steps.NewTimings()
	status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features/simple.feature", again}, Format: "progress", Output: io.Discard, Timings: timings})
	if status == 0 {
		t.Fatal("the seed feature passed though the webhook was sent none of its pods")
	}
	// Each scenario creates a preset: its wait ends when the probe is
	// not sent, with no propagation measured (a wait that ran to the sync
	// timeout would have been counted as one).
	if n, _, longest := w.Propagation(); n > 0 {
		t.Errorf("%d propagation lags measured (longest %s), want none: no probe reached the webhook", n, longest)
	}
	scenarios := timings.List()
	if len(scenarios) == 0 {
		t.Fatal("no scenario ran")
	}
	for _, sc := range scenarios {
		if len(sc.Checks) == 0 || sc.Checks[0].Step != steps.DeliveredCheck || sc.Checks[0].Outcome != outcome.Failed {
			t.Errorf("%s: first check %+v, want the failed %q", sc.Scenario, sc.Checks, steps.DeliveredCheck)
			continue
		}
		msg := sc.Checks[0].Err.Error()
		for _, want := range []string{"without sending its creation to the implementation", "example.com/podpresets=enabled"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the R5.4 failure does not say %q: %s", sc.Scenario, want, msg)
			}
		}
		if n := strings.Count(msg, `pod "web"`); strings.Contains(sc.Scenario, "sent once") && n != 1 {
			t.Errorf("%s: the R5.4 failure names pod \"web\" %d times, want once (its second creation): %s", sc.Scenario, n, msg)
		}
		if got := sc.Checks[0].Rules; len(got) != 1 || got[0] != rule.R5_4 {
			t.Errorf("%s: the first check names %v, want R5.4", sc.Scenario, got)
		}
	}
}

// TestJudgedAsDeployed: a webhook that would change pod UPDATEs, registered
// as it ships for the CREATE of pods only, is never sent an UPDATE in a
// cluster: on envtest, the updates feature passes, and what it would do
// is a finding on R2.1 (the harness sent it the UPDATEs anyway, and kept
// its answers from the API server); asked to judge such requests
// (backend.UnsubscribedFail), the same run fails on R2.1. A registration
// narrowed to labelled namespaces, declared by the profile's
// namespaceLabels, gets its pods: the run labels its namespaces.
func TestJudgedAsDeployed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	const createOnly = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: podpresets
webhooks:
  - name: podpresets.example.com
    admissionReviewVersions: [v1]
    sideEffects: None
    clientConfig:
      service: {name: podpresets, namespace: system, path: /mutate-pods}
%s    rules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
`
	narrowed := "    namespaceSelector:\n      matchLabels: {app.kubernetes.io/part-of: kubeflow-profile}\n"
	for _, tc := range []struct {
		name, module, selector, feature string
		mode                            backend.Unsubscribed
		profile                         string // namespaceLabels, when set
		failed                          rule.ID
		finding                         rule.ID
	}{
		{"as deployed", "mutant/mutates-updates", "", "updates.feature", backend.UnsubscribedReport, "", "", rule.R2_1},
		{"judged strictly", "mutant/mutates-updates", "", "updates.feature", backend.UnsubscribedFail, "", rule.R2_1, ""},
		{"a declared narrowing", "reference", narrowed, "simple.feature", backend.UnsubscribedReport, "app.kubernetes.io/part-of: kubeflow-profile", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var prof *profile.Profile
			if tc.profile != "" {
				var err error
				if prof, err = profile.Parse("narrowed.yaml", []byte("apiVersion: presetsim.dev/v1alpha1\nkind: Profile\nmetadata:\n  name: narrowed\nspec:\n  referenceCRD: true\n  namespaceLabels:\n    "+tc.profile+"\n")); err != nil {
					t.Fatal(err)
				}
			}
			w := startServedAsShipped(t, fmt.Sprintf(createOnly, tc.selector), tc.module, 0, harness.Options{Profile: prof, Unsubscribed: tc.mode})
			_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features/" + tc.feature}, Format: "progress", Output: io.Discard})
			failed, found := 0, 0
			for _, sc := range timings.List() {
				if sc.Failed {
					failed++
					if tc.failed == "" || !slices.Contains(sc.FailedRules(), tc.failed) {
						t.Errorf("%s failed → %v, want %v: %v", sc.Scenario, sc.FailedRules(), tc.failed, sc.Err)
					}
				}
				for _, f := range sc.Findings {
					found++
					if f.Rule != tc.finding || !strings.Contains(f.Text, "if its registration sent it") {
						t.Errorf("%s: finding %s, want one on %q", sc.Scenario, f, tc.finding)
					}
				}
			}
			if (tc.failed != "") != (failed > 0) {
				t.Errorf("%d scenarios failed, want some: %v", failed, tc.failed != "")
			}
			if (tc.finding != "") != (found > 0) {
				t.Errorf("%d findings, want some: %v", found, tc.finding != "")
			}
		})
	}
}

// startServedAsShipped starts a run on envtest against `presetsim serve
// --module module` (this test binary acting as presetsim) as an external
// webhook registered as registration (YAML) ships, with opts' profile and
// mode, and stops it when the test ends. The webhook may take syncTimeout
// to show a preset (the default when zero).
func startServedAsShipped(t *testing.T, registration, module string, syncTimeout time.Duration, opts harness.Options) *harness.World {
	t.Helper()
	certs, certFile, keyFile := servingFiles(t, t.TempDir())
	addr := freeAddr(t)
	t.Setenv(childEnv, "1") // os.Args[0] below is this test binary acting as presetsim
	reg, err := externalimpl.ParseRegistration("registration.yaml", []byte(registration))
	if err != nil {
		t.Fatal(err)
	}
	opts.Backend = envtest.New(envtest.Options{})
	opts.Implementation = externalimpl.New(externalimpl.Options{
		URL: "https://" + addr + "/mutate-pods", CABundle: certs.CABundle, Registration: reg, SyncTimeout: syncTimeout,
		Command: []string{os.Args[0], "serve", "--module", module, "--kubeconfig", externalimpl.KubeconfigPlaceholder,
			"--addr", addr, "--cert", certFile, "--key", keyFile},
	})
	w, err := harness.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("unable to start with the external module: %v", err)
	}
	t.Cleanup(func() {
		if err := w.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return w
}
