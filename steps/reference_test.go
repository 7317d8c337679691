package steps

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"presetsim.dev/presetsim/rule"
)

var update = flag.Bool("update", false, "rewrite docs/steps.md from the step registry")

// readable turns a step's expression into the words a feature file
// writes, with a placeholder per argument.
var readable = strings.NewReplacer(
	`"([^"]*)"`, `"…"`, `"(.*)"`, `"…"`, `(\d+)`, `N`, `([A-Z]\w*)`, `KIND`, `(\w+)`, `KIND`,
	`(?: for (\S+))?`, ` [for DURATION]`, `pods?`, `pod(s)`, `nodes?`, `node(s)`,
)

// TestStepReference: docs/steps.md is the step registry rendered, every
// step with what it takes, the rules a failure is credited to and the
// capability it needs, so that the reference cannot go stale (go test
// ./steps -run TestStepReference -update rewrites it).
func TestStepReference(t *testing.T) {
	var b strings.Builder
	b.WriteString("<!-- Generated from the step registry (steps.Reference) by `go test ./steps -run TestStepReference -update`; do not edit. -->\n")
	b.WriteString("# Step reference\n\n")
	b.WriteString("Every step of the language, in the order the registry defines them. **Kind**: a *setup* step prepares the\n")
	b.WriteString("scenario (a failure is blamed on its rules, within the scenario's tags); a *check* establishes its rules.\n")
	b.WriteString("**Rules**: what a failure is credited to before it is narrowed by the scenario's tags and, for a pod\n")
	b.WriteString("comparison, by the paths that differ. **Shows**: the kind of evidence, which a profile's declared\n")
	b.WriteString("difference must name to excuse it. **Needs**: the profile capability without which it is *not claimed*.\n")
	b.WriteString("guide.md (\"Writing a scenario\") says what each step means.\n\n")
	b.WriteString("| step | takes | kind | rules | shows | needs |\n|---|---|---|---|---|---|\n")
	seen := map[string]bool{}
	for _, d := range Reference() {
		if seen[d.Expression] {
			t.Errorf("step %s is registered twice", d.Expression)
		}
		seen[d.Expression] = true
		if _, err := regexp.Compile(d.Expression); err != nil {
			t.Errorf("step %s: %v", d.Expression, err)
		}
		text := readable.Replace(strings.TrimSuffix(strings.TrimPrefix(d.Expression, "^"), "$"))
		takes := ""
		switch {
		case d.DocString:
			takes = "YAML"
		case d.Table:
			takes = "table"
		}
		var rules []rule.ID
		for _, r := range d.Rules {
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
		text = strings.ReplaceAll(text, "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", text, takes, d.Kind, rule.Join(rules, ", "), d.Shows, d.Needs)
	}
	const path = "../docs/steps.md"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./steps -run TestStepReference -update writes it)", err)
	}
	if string(want) != b.String() {
		t.Errorf("docs/steps.md is not the step registry rendered: run go test ./steps -run TestStepReference -update and commit it")
	}
}
