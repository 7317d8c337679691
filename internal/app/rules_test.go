package app

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"presetsim.dev/presetsim/rule"
)

// TestRules: `presetsim rules` lists every rule with its title, as text
// and as JSON.
func TestRules(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := Run(context.Background(), &stdout, &stderr, []string{"rules"}); err != nil {
		t.Fatalf("rules: %v; stderr:\n%s", err, stderr.String())
	}
	for _, r := range rule.All {
		if !strings.Contains(stdout.String(), string(r.ID)+" ") || !strings.Contains(stdout.String(), r.Title) {
			t.Errorf("rules does not list %s %q:\n%s", r.ID, r.Title, stdout.String())
		}
	}
	stdout.Reset()
	if err := Run(context.Background(), &stdout, &stderr, []string{"rules", "-o", "json"}); err != nil {
		t.Fatalf("rules -o json: %v", err)
	}
	var got []rule.Rule
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || len(got) != len(rule.All) {
		t.Errorf("rules -o json: %d rules (%v), want %d", len(got), err, len(rule.All))
	}
}
