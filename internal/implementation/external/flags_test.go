package external

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/internal/webhook"
)

// TestWebhookCommand: --webhook-command is split as a shell would, with
// leading NAME=value words as the command's environment, and a malformed
// one is an error that names the flag.
func TestWebhookCommand(t *testing.T) {
	ca := caFile(t)
	parse := func(command string) (env, args []string, err error) {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		f := bindFlags(fs)
		if err := fs.Parse([]string{"--webhook-url", "https://127.0.0.1:9443/mutate", "--webhook-ca", ca, "--webhook-command", command}); err != nil {
			t.Fatal(err)
		}
		m, err := f.options()
		if err != nil {
			return nil, nil, err
		}
		return m.Env, m.Command, nil
	}
	env, args, err := parse(`LOG=debug ./hook --kubeconfig {kubeconfig} --name 'my hook'`)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(env, []string{"LOG=debug"}) || !slices.Equal(args, []string{"./hook", "--kubeconfig", "{kubeconfig}", "--name", "my hook"}) {
		t.Errorf("env %q, args %q", env, args)
	}
	if _, _, err := parse(`./hook "unterminated`); err == nil || !strings.Contains(err.Error(), "--webhook-command") {
		t.Errorf("a malformed command gave %v, want an error naming --webhook-command", err)
	}
}

// caFile writes a real CA bundle and returns its path.
func caFile(t *testing.T) string {
	t.Helper()
	certs, err := webhook.NewCertificates("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, certs.CABundle, 0o600); err != nil {
		t.Fatal(err)
	}
	return ca
}

// TestWebhookFlagsCheckedFirst: a URL that is not https, a CA file that
// holds no certificate (a key, say), or neither a CA nor a command is a
// usage error before anything starts, naming the flag.
func TestWebhookFlagsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(key, []byte("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // "" for no error
	}{
		{"https and a CA", []string{"--webhook-url", "https://127.0.0.1:9443/m", "--webhook-ca", caFile(t)}, ""},
		{"https and a command, no CA", []string{"--webhook-url", "https://127.0.0.1:9443/m", "--webhook-command", "./hook --cert {cert} --key {key}"}, ""},
		{"http", []string{"--webhook-url", "http://127.0.0.1:9443/m", "--webhook-ca", caFile(t)}, "--webhook-url must be an https:// URL"},
		{"no host", []string{"--webhook-url", "https:///m", "--webhook-ca", caFile(t)}, "--webhook-url must be an https:// URL"},
		{"a key as the CA", []string{"--webhook-url", "https://127.0.0.1:9443/m", "--webhook-ca", key}, "holds a PRIVATE KEY, not a CA certificate"},
		{"an empty CA", []string{"--webhook-url", "https://127.0.0.1:9443/m", "--webhook-ca", empty}, "holds no PEM certificate"},
		{"neither CA nor command", []string{"--webhook-url", "https://127.0.0.1:9443/m"}, "--webhook-url needs --webhook-ca"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			f := bindFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			_, err := f.options()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestPortFree: a webhook whose address already answers before its
// command starts is refused, naming the address.
func TestPortFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := portFree("https://" + l.Addr().String() + "/m"); err == nil || !strings.Contains(err.Error(), l.Addr().String()) {
		t.Errorf("a held port gave %v, want an error naming %s", err, l.Addr())
	}
	addr := l.Addr().String()
	l.Close()
	if err := portFree("https://" + addr + "/m"); err != nil {
		t.Errorf("a free port gave %v", err)
	}
}
