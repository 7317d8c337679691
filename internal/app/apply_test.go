package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/report/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestApply(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		golden   string // compared with stdout
		wantCode int    // ExitError code; 0 for success
		wantErr  []string
	}{
		{name: "configmap example as YAML", args: []string{"-f", "testdata/valid-configmap-example.yaml"}, golden: "configmap-example.yaml.golden"},
		{name: "conflict example as a diff", args: []string{"-o", "diff", "--color", "never", "-f", "testdata/valid-conflict-example.yaml"}, golden: "conflict-example.diff.golden"},
		{name: "conflict fails when asked", args: []string{"--fail-on-conflict", "-f", "testdata/valid-conflict-example.yaml"}, wantCode: ConflictExitCode},
		{name: "workload from stdin as a diff", args: []string{"-o", "diff", "--color", "never", "-f", "-"}, stdin: workload, golden: "workload.diff.golden"},
		// The same pods through the presets compiled into a policy and the
		// API server's own mutating-policy plug-in: the same output.
		{name: "policy: configmap example as YAML", args: []string{"--implementation", "policy", "-f", "testdata/valid-configmap-example.yaml"}, golden: "configmap-example.yaml.golden"},
		// The warning as the API server returns a ValidatingAdmissionPolicy's.
		{name: "policy: conflict example as a diff", args: []string{"--implementation", "policy", "-o", "diff", "--color", "never", "-f", "testdata/valid-conflict-example.yaml"}, golden: "conflict-example-policy.diff.golden"},
		{name: "policy: workload from stdin as a diff", args: []string{"--implementation", "policy", "-o", "diff", "--color", "never", "-f", "-"}, stdin: workload, golden: "workload.diff.golden"},
		{name: "an unknown implementation", args: []string{"--implementation", "kyverno", "-f", "testdata/valid-configmap-example.yaml"}, wantCode: 2},
		{name: "bad input names file, line and field", args: []string{"-f", "testdata/invalid-seed-simple.yaml"},
			wantErr: []string{"testdata/invalid-seed-simple.yaml:2: apiVersion", "testdata/invalid-seed-simple.yaml:12: spec.env[0].value"}},
		{name: "every invalid preset field, with its line and rule", args: []string{"-f", "testdata/invalid-presets.yaml"},
			wantErr: []string{
				`testdata/invalid-presets.yaml:9: spec.selector.matchExpressions[0].operator: Invalid value: "Inn"`,
				"testdata/invalid-presets.yaml:13: spec.selector.matchExpressions[1].values: Forbidden",
				"testdata/invalid-presets.yaml:22: spec: Required value: at least one of env, envFrom, volumes or volumeMounts must be set (R1.4)",
			}},
		{name: "a folder as kubectl reads one", args: []string{"-f", "testdata/folder"}, golden: "configmap-example.yaml.golden"},
		{name: "a folder with no manifest", args: []string{"-f", "testdata/empty-folder"}, wantErr: []string{"no .yaml, .yml or .json file in the folder testdata/empty-folder"}},
		{name: "an empty standard input", args: []string{"-f", "-"}, wantErr: []string{"no object in -"}},
		{name: "missing file", args: []string{"-f", "testdata/nope.yaml"}, wantErr: []string{"nope.yaml"}},
		{name: "no file", args: nil, wantCode: 2},
		// docs/ci.md's example, read from folders: the change makes a
		// conflict (exit 3), and the tracing preset, not in the change's
		// folder, is gone from every pod it applied to.
		{name: "a change's diff as Markdown", args: []string{"--diff", "../../examples/platform/presets", "../../examples/platform-change/presets", "-f", "../../examples/platform/workloads"},
			golden: "platform-change.md.golden", wantCode: ConflictExitCode},
		{name: "a diff of one side with itself", args: []string{"--diff", "../../examples/platform/presets", "../../examples/platform/presets", "-f", "../../examples/platform/workloads"},
			golden: "platform-same.md.golden"},
		{name: "--diff needs two sides", args: []string{"--diff", "testdata/folder"}, wantCode: 2},
		{name: "--diff without -f has no pods on either side", args: []string{"--diff", "../../examples/platform/presets", "../../examples/platform/presets"}, golden: "platform-no-pods.md.golden"},
		{name: "--diff and --explain", args: []string{"--diff", "--explain", "testdata/folder", "testdata/folder"}, wantCode: 2},
		{name: "--diff reads no shared file from standard input", args: []string{"--diff", "-f", "-", "testdata/folder", "testdata/folder"}, wantCode: 2},
		{name: "--diff has no YAML output", args: []string{"--diff", "-o", "yaml", "testdata/folder", "testdata/folder"}, wantCode: 2},
		{name: "--diff of a side with a mistake", args: []string{"--diff", "testdata/folder", "testdata/invalid-presets.yaml"}, wantErr: []string{"testdata/invalid-presets.yaml:9:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := runApply(context.Background(), strings.NewReader(tt.stdin), &stdout, &stderr, tt.args)
			var exit cli.ExitError
			switch {
			case tt.wantCode != 0:
				if !errors.As(err, &exit) || exit.Code != tt.wantCode {
					t.Fatalf("error %v, want exit code %d; stderr:\n%s", err, tt.wantCode, stderr.String())
				}
			case len(tt.wantErr) > 0:
				if err == nil {
					t.Fatalf("no error; stdout:\n%s", stdout.String())
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not contain %q:\n%v", w, err)
					}
				}
			case err != nil:
				t.Fatalf("apply: %v; stderr:\n%s", err, stderr.String())
			}
			if tt.golden != "" {
				reporttest.Golden(t, strings.TrimSuffix(tt.golden, ".golden"), stdout.Bytes(), *update)
			}
		})
	}
}

func TestApplyJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := runApply(context.Background(), nil, &stdout, &stderr, []string{"-o", "json", "-f", "testdata/valid-conflict-example.yaml"}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Source   string         `json:"source"`
		Applied  []string       `json:"applied"`
		Warnings []string       `json:"warnings"`
		Pod      map[string]any `json:"pod"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout.String())
	}
	if len(got) != 1 || got[0].Source != "Pod website" || len(got[0].Applied) != 0 ||
		len(got[0].Warnings) != 1 || !strings.Contains(got[0].Warnings[0], "duplicate mountPath /cache") {
		t.Errorf("unexpected result: %+v", got)
	}
	if ann, _ := got[0].Pod["metadata"].(map[string]any)["annotations"]; ann != nil {
		t.Errorf("a conflicting pod got annotations: %v", ann)
	}
}

const workload = `apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata:
  name: allow-database
  namespace: shop
spec:
  selector:
    matchLabels:
      tier: frontend
  env:
    - name: DB_PORT
      value: "6379"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: frontend
  namespace: shop
spec:
  selector:
    matchLabels:
      tier: frontend
  template:
    metadata:
      labels:
        tier: frontend
    spec:
      containers:
        - name: php-redis
          image: gb-frontend:v3
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: elsewhere
spec:
  selector:
    matchLabels:
      tier: frontend
  template:
    metadata:
      labels:
        tier: frontend
    spec:
      containers:
        - name: php-redis
          image: gb-frontend:v3
`

// runApply runs `presetsim apply ARGS` with stdin.
func runApply(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args []string) error {
	root := newRootCommand(stdin, stdout, stderr)
	root.SetArgs(append([]string{"apply"}, args...))
	return root.ExecuteContext(ctx)
}
