package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/harness"
	externalimpl "presetsim.dev/presetsim/harness/implementation/external"
	"presetsim.dev/presetsim/harness/webhook"
	"presetsim.dev/presetsim/internal/interrupt"
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

// TestSuiteAgainstExternalServe runs the whole feature suite against the
// reference implementation served out of process by `presetsim serve`,
// registered as an external module: the external path end to end.
func TestSuiteAgainstExternalServe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	dir := t.TempDir()
	certs, err := webhook.NewCertificates("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := certs.ServingPEM()
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	t.Setenv(childEnv, "1") // the command below is this test binary acting as presetsim

	interrupts := interrupt.Catch(context.Background())
	defer interrupts.Release()
	w, err := harness.Start(interrupts.Context(), harness.Options{
		Progress: os.Stderr,
		Implementation: externalimpl.New(externalimpl.Options{
			URL:      "https://" + addr + "/mutate-pods",
			CABundle: certs.CABundle,
			Command: []string{os.Args[0], "serve", "--kubeconfig", externalimpl.KubeconfigPlaceholder,
				"--addr", addr, "--cert", certFile, "--key", keyFile},
		}),
	})
	if err != nil {
		t.Fatalf("unable to start with the external module: %v", err)
	}
	interrupts.OnSignal(w.Stop)
	defer func() {
		if err := w.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features"}, Format: "progress", TestingT: t})
	if status != 0 {
		t.Errorf("the suite failed against the external reference (status %d)", status)
	}
	t.Logf("external reference: %d scenarios, median %s", len(timings.List()), timings.Median())
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
	w, err := harness.Start(context.Background(), harness.Options{Implementation: externalimpl.New(externalimpl.Options{
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
	w, err := harness.Start(context.Background(), harness.Options{Implementation: externalimpl.New(externalimpl.Options{
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
