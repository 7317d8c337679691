package report

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"presetsim.dev/presetsim/internal/mutants"
)

// TestEveryRuleNamedIsKnown: every @R tag of the curated suite, every rule
// id the checks, the model and fuzz write, and every mutant's rule names a
// rule of the specification's table, which Build
// needs to credit a result (an unknown one would be dropped from the
// per-rule summary).
func TestEveryRuleNamedIsKnown(t *testing.T) {
	known := func(id string) bool {
		return slices.ContainsFunc(Rules, func(r Rule) bool { return r.ID == id })
	}
	files, err := filepath.Glob("../../features/*.feature")
	if err != nil || len(files) == 0 {
		t.Fatalf("no feature files found (%v)", err)
	}
	tag := regexp.MustCompile(`@(R\d+\.\d+)\b`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range tag.FindAllStringSubmatch(string(data), -1) {
			if !known(m[1]) {
				t.Errorf("%s: tag @%s names no rule of the specification", f, m[1])
			}
		}
	}
	// The rules checks and the model's verdicts credit, as Go literals.
	literal := regexp.MustCompile(`"(R\d+\.\d+)"`)
	for _, dir := range []string{"../../steps", "../fuzz", "../../harness/profile", "../../presets/model"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(path) != ".go" || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range literal.FindAllStringSubmatch(string(data), -1) {
				if !known(m[1]) {
					t.Errorf("%s: %q names no rule of the specification", path, m[1])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range mutants.All {
		if !known(m.Rule) {
			t.Errorf("mutant %s breaks %q, which is no rule of the specification", m.Name, m.Rule)
		}
	}
}

// TestRulesAreTheSpecification: the rule table is the specification's
// rules (docs/specification.md), every one and in its order, so that
// `presetsim rules` and the reports list what the document defines.
func TestRulesAreTheSpecification(t *testing.T) {
	data, err := os.ReadFile("../../docs/specification.md")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range regexp.MustCompile(`(?m)^- \*\*(R\d+\.\d+)\*\*`).FindAllStringSubmatch(string(data), -1) {
		ids = append(ids, m[1])
	}
	var table []string
	for _, r := range Rules {
		table = append(table, r.ID)
	}
	if !slices.Equal(ids, table) {
		t.Errorf("docs/specification.md defines %v; the rule table has %v", ids, table)
	}
}
