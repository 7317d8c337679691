package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

// TestBadInput feeds the seed proposal's verbatim (wrong) YAML and malformed
// DocStrings through the steps: every scenario must fail, and its error must
// name the feature file, the line and the problem. Decoding happens before any
// API call, so the offline backend does.
func TestBadInput(t *testing.T) {
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var out bytes.Buffer
	status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{"testdata/invalid"}, Format: "cucumber", Output: &out})
	if status == 0 {
		t.Fatalf("the suite of invalid inputs passed")
	}
	got := failures(t, out.Bytes())

	const file = "testdata/invalid/seed.feature"
	tests := []struct {
		scenario string
		want     []string // substrings of the failing step's error
	}{
		{"Simple example preset with the proposal's apiVersion", []string{file + ":10:", "apiVersion", `settings.k8s.io/v1alpha1`}},
		{"Simple example preset with an unquoted number", []string{file + ":29:", "spec.env[0].value"}},
		{"ConfigMap example preset with secretName directly under the volume", []string{file + ":49:", "spec.volumes[0].secretName", "unknown field"}},
		{"ConfigMap example preset with name beside configMapRef", []string{file + ":65:", "spec.envFrom[0].name", "unknown field"}},
		{"ReplicaSet example with the proposal's apiVersion", []string{file + ":71:", "apiVersion", "apps/v1"}},
		{"Conflict example pod with volumes under ports", []string{file + ":97:", "invalid YAML"}},
		{"A DocString that is not YAML", []string{file + ":103:", "invalid YAML"}},
		{"A pod step given a PodPreset", []string{file + ":", "expected a Pod", "PodPreset"}},
		{"A document without a kind", []string{file + ":", "kind"}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			msg, ok := got[tt.scenario]
			if !ok {
				t.Fatalf("scenario did not fail (or is missing); failures: %v", keys(got))
			}
			t.Log(msg)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not contain %q:\n%s", w, msg)
				}
			}
		})
	}
	if len(got) != len(tests) {
		t.Errorf("%d scenarios failed, the test checks %d: %v", len(got), len(tests), keys(got))
	}
}

// failures reads godog's cucumber JSON: scenario name → error of its failed step.
func failures(t *testing.T, report []byte) map[string]string {
	t.Helper()
	var features []struct {
		Elements []struct {
			Name  string `json:"name"`
			Steps []struct {
				Result struct {
					Status string `json:"status"`
					Error  string `json:"error_message"`
				} `json:"result"`
			} `json:"steps"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(report, &features); err != nil {
		t.Fatalf("unable to read the cucumber report: %v\n%s", err, report)
	}
	out := map[string]string{}
	for _, f := range features {
		for _, e := range f.Elements {
			for _, s := range e.Steps {
				if s.Result.Status == "failed" {
					out[e.Name] = s.Result.Error
				}
			}
		}
	}
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
