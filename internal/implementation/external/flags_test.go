package external

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestWebhookCommand: --webhook-command is split as a shell would, with
// leading NAME=value words as the command's environment, and a malformed
// one is an error that names the flag.
func TestWebhookCommand(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
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
