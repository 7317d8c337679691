package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/internal/webhook"
)

// TestChoice: --backend and --implementation name a registration, a
// registration's own flag chooses it, an existing cluster tests what is
// installed unless told otherwise, a kind brings its profile, and mixing
// flags of two registrations is a usage error that names them.
func TestChoice(t *testing.T) {
	certs, err := webhook.NewCertificates("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, certs.CABundle, 0o600); err != nil {
		t.Fatal(err)
	}
	hook := []string{"--webhook-url", "https://127.0.0.1:9443/mutate", "--webhook-ca", ca}
	tests := []struct {
		name                string
		args                []string
		backend, impl, prof string
		wantErr             string
	}{
		{name: "defaults", backend: "envtest", impl: "reference"},
		{name: "a module", args: []string{"--module", "mutant/ignores-exclude"}, backend: "envtest", impl: "mutant/ignores-exclude"},
		{name: "offline", args: []string{"--backend", "offline"}, backend: "offline", impl: "reference"},
		{name: "kubeconfig chooses the cluster and what is installed", args: []string{"--kubeconfig", "/dev/null"}, backend: "cluster", impl: "installed on the cluster"},
		{name: "a webhook on an existing cluster", args: append([]string{"--kubeconfig", "/dev/null"}, hook...), backend: "cluster", impl: "https://127.0.0.1:9443/mutate"},
		{name: "the policy brings its profile", args: []string{"--implementation", "policy"}, backend: "envtest", impl: "MutatingAdmissionPolicy compiled from the presets", prof: "MutatingAdmissionPolicy"},
		{name: "unknown backend", args: []string{"--backend", "k3d"}, wantErr: `unknown backend "k3d" (known: envtest, offline, kind, cluster)`},
		{name: "unknown implementation", args: []string{"--implementation", "nope"}, wantErr: `unknown implementation "nope" (known: module, webhook, policy, installed)`},
		{name: "a cluster's flag with another backend", args: []string{"--backend", "offline", "--kubeconfig", "/dev/null"}, wantErr: "--kubeconfig belongs to backend cluster, not to --backend offline"},
		{name: "a module's flag with the policy", args: []string{"--implementation", "policy", "--module", "reference"}, wantErr: "--module belongs to implementation module, not to --implementation policy"},
		{name: "flags of two kinds", args: append([]string{"--module", "reference"}, hook...), wantErr: "flags of more than one implementation were set: --module (module), --webhook-"},
		{name: "a webhook needs its URL", args: []string{"--implementation", "webhook"}, wantErr: "needs --webhook-url"},
		{name: "an unknown module", args: []string{"--module", "nope"}, wantErr: `unknown admission module "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
			c := BindFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := c.Resolve(implementation.Env{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Backend.Name() != tt.backend || got.Implementation.Name() != tt.impl {
				t.Errorf("chose %s and %q, want %s and %q", got.Backend.Name(), got.Implementation.Name(), tt.backend, tt.impl)
			}
			switch {
			case tt.prof == "" && got.Profile != nil:
				t.Errorf("profile %s, want none", got.Profile.Spec.Implementation)
			case tt.prof != "" && (got.Profile == nil || !strings.Contains(got.Profile.Spec.Implementation, tt.prof)):
				t.Errorf("profile %+v, want %s", got.Profile, tt.prof)
			}
		})
	}
}
