package steps_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

// TestObjectChecksFail: "should match" and "should not exist" fail when
// they should, each with a message that names what differs (a keyed path,
// the file and line of a misspelt field). features/objects.feature is
// where they pass.
func TestObjectChecksFail(t *testing.T) {
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New(), Timeouts: harness.Timeouts{Wait: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var out bytes.Buffer
	if status, _ := steps.Run(w, steps.SuiteOptions{Paths: []string{"testdata/objects"}, Format: "cucumber", Output: &out}); status == 0 {
		t.Fatal("the suite of failing object checks passed")
	}
	got := failures(t, out.Bytes())
	const file = "testdata/objects/objects.feature"
	tests := []struct {
		scenario string
		want     []string
	}{
		{"a keyed item's value differs", []string{`Pod "website" does not match after 300ms`, `spec.containers[website].env[DB_PORT].value: want "5432", got "6379"`}},
		{"a keyed item is missing", []string{`spec.containers[proxy]: want {"name":"proxy"}, got <absent>`}},
		{"a misspelt field", []string{file + ":52:", "spec.containres", "unknown field"}},
		{"another kind written in the DocString", []string{file + ":60:", `must be "ConfigMap" here, got "Secret"`}},
		{"an object that does not exist", []string{`ConfigMap "nowhere" does not match after 300ms: it does not exist`}},
		{"an object that exists", []string{`ConfigMap "app-config" still exists after 300ms: it exists`}},
		{"an unknown kind", []string{`unknown kind "Gizmo"`}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			msg, ok := got[tt.scenario]
			if !ok {
				t.Fatalf("scenario did not fail (or is missing); failures: %v", keys(got))
			}
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
