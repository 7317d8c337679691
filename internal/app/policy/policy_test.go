package policy

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"presetsim.dev/presetsim/internal/app/cli"
)

// TestPolicyCommand: what `presetsim policy` prints and refuses. What the
// policy does is the suite's to say (TestFeaturesPolicy); what it is,
// presets/policy's golden file.
func TestPolicyCommand(t *testing.T) {
	const list = `apiVersion: v1
kind: List
items:
- apiVersion: settings.k8s.io/v1alpha1
  kind: PodPreset
  metadata: {name: db, namespace: shop, resourceVersion: "7"}
  spec:
    selector: {matchLabels: {role: frontend}}
    env: [{name: DB_PORT, value: "6379"}]
- apiVersion: settings.k8s.io/v1alpha1
  kind: PodPreset
  metadata: {name: cache}
  spec:
    selector: {}
    env: [{name: CACHE, value: "on"}]
`
	tests := []struct {
		name     string
		args     []string
		stdin    string
		want     []string // in stdout
		wantCode int
		wantErr  string
	}{
		{name: "a List from stdin, one policy and binding per namespace", args: []string{"-f", "-"}, stdin: list,
			want: []string{"name: podpresets-default", "name: podpresets-shop", "presetsim.dev/presets: db=7", "presetsim.dev/presets: cache=", "failurePolicy: Fail",
				"reinvocationPolicy: IfNeeded", "kind: MutatingAdmissionPolicyBinding", "kubernetes.io/metadata.name: shop"}},
		{name: "Ignore", args: []string{"-f", "-", "--failure-policy", "Ignore"}, stdin: list, want: []string{"failurePolicy: Ignore"}},
		{name: "bad failure policy", args: []string{"-f", "-", "--failure-policy", "ignore"}, stdin: list, wantCode: 2},
		{name: "Never reinvoked", args: []string{"-f", "-", "--reinvocation-policy", "Never"}, stdin: list, want: []string{"reinvocationPolicy: Never"}},
		{name: "bad reinvocation policy", args: []string{"-f", "-", "--reinvocation-policy", "Always"}, stdin: list, wantCode: 2},
		{name: "no file", wantCode: 2},
		{name: "an invalid preset is refused with its line and rule", args: []string{"-f", "../testdata/invalid-presets.yaml"},
			wantErr: "../testdata/invalid-presets.yaml:9: spec.selector.matchExpressions[0].operator: Invalid value: \"Inn\": not a valid selector operator (R1.3)"},
		{name: "bad input names file, line and field", args: []string{"-f", "../testdata/invalid-seed-simple.yaml"},
			wantErr: "../testdata/invalid-seed-simple.yaml:12: spec.env[0].value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root := NewCommand(strings.NewReader(tt.stdin), &stdout, &stderr)
			root.SetArgs(tt.args)
			err := root.ExecuteContext(context.Background())
			var exit cli.ExitError
			switch {
			case tt.wantCode != 0:
				if !errors.As(err, &exit) || exit.Code != tt.wantCode {
					t.Fatalf("error %v, want exit code %d; stderr:\n%s", err, tt.wantCode, stderr.String())
				}
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("policy: %v; stderr:\n%s", err, stderr.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("output does not contain %q:\n%s", w, stdout.String())
				}
			}
		})
	}
}
