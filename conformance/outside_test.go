package conformance_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"presetsim.dev/presetsim/backends/envtest"
)

// outsideTest is the test of a module that is not this one: it checks a
// webhook (presetsim serve, started by the run with the certificate the
// run issues) with the public API alone: it cannot import anything else.
const outsideTest = `package mywebhook_test

import (
	"os"
	"testing"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/conformance"
)

func TestMyWebhook(t *testing.T) {
	addr := os.Getenv("WEBHOOK_ADDR")
	webhook := conformance.Webhook("https://"+addr+"/mutate-pods", nil,
		conformance.WithCommand(os.Getenv("WEBHOOK_BINARY"), "serve", "--kubeconfig", "{kubeconfig}",
			"--addr", addr, "--cert", "{cert}", "--key", "{key}"))
	r := conformance.Run(t,
		conformance.WithBackend(envtest.New(envtest.Options{})),
		conformance.WithImplementation(webhook),
		conformance.WithFeatures(os.DirFS(os.Getenv("FEATURES")), "simple.feature"))
	if r == nil || !r.Passed {
		t.Fatal("the webhook did not pass")
	}
}
`

// TestOutsideModule: a Go test in a module of its own checks a webhook
// with the public API only (Go refuses it anything under internal/), on
// envtest, with no flag string and no certificate of its own.
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own and starts a control plane; skipped with -short")
	}
	bin, err := envtest.FindBinaries()
	if err != nil {
		t.Skipf("the control plane's binaries are not built here (make tools): %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	presetsimBinary := filepath.Join(dir, "presetsim")
	build := exec.Command("go", "build", "-o", presetsimBinary, "./cmd/presetsim")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building presetsim: %v\n%s", err, out)
	}
	module := filepath.Join(dir, "mywebhook")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":            "module example.com/mywebhook\n\ngo 1.26.0\n\nrequire presetsim.dev/presetsim v0.0.0\n\nreplace presetsim.dev/presetsim => " + root + "\n",
		"go.sum":            string(sum),
		"mywebhook_test.go": outsideTest,
	}
	if err := os.MkdirAll(module, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(module, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	test := exec.Command("go", "test", "-mod=mod", "-count=1", "-v", "./...")
	test.Dir = module
	test.Env = append(os.Environ(), "WEBHOOK_ADDR="+addr, "WEBHOOK_BINARY="+presetsimBinary,
		"FEATURES="+filepath.Join(root, "features"), envtest.BinDirEnv+"="+bin)
	out, err := test.CombinedOutput()
	if err != nil {
		t.Fatalf("the outside module's test failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestMyWebhook/") {
		t.Errorf("the outside module's test ran no scenario:\n%s", out)
	}
}

// freeAddr is a loopback address with a port no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
