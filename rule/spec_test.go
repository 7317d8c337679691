package rule

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the module's root, from this package's directory.
const root = ".."

// TestCatalogueIsTheSpecification: the catalogue is the specification's
// rules (docs/specification.md), every one and in its order, so that
// `presetsim rules` and the reports list what the document defines.
func TestCatalogueIsTheSpecification(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "specification.md"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []ID
	for _, m := range regexp.MustCompile(`(?m)^- \*\*(R\d+\.\d+)\*\*`).FindAllStringSubmatch(string(data), -1) {
		ids = append(ids, ID(m[1]))
	}
	var catalogue []ID
	for _, r := range All {
		catalogue = append(catalogue, r.ID)
	}
	if !slices.Equal(ids, catalogue) {
		t.Errorf("docs/specification.md defines %v; the catalogue has %v", ids, catalogue)
	}
	for _, m := range regexp.MustCompile(`(?m)^## (R\d+) (.+)$`).FindAllStringSubmatch(string(data), -1) {
		if Sections[m[1]] != m[2] {
			t.Errorf("docs/specification.md titles section %s %q; the catalogue %q", m[1], m[2], Sections[m[1]])
		}
	}
}

// TestFeatureTagsAreRules: every @R tag of the built-in suite names a rule
// of the catalogue (a report would credit an unknown one to no rule of the
// specification).
func TestFeatureTagsAreRules(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "features", "*.feature"))
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
			if !Known(ID(m[1])) {
				t.Errorf("%s: tag @%s names no rule of the specification", f, m[1])
			}
		}
	}
}

// TestNoBareRuleIDs: outside this package, Go code names a rule of the
// specification by its constant (rule.R4_3), never by a string literal
// ("R4.3"), so that the compiler finds every use of a rule. A literal that
// names no rule (a test of what an unknown id does) is allowed.
func TestNoBareRuleIDs(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "rule") {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".go" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && Known(ID(s)) {
				t.Errorf("%s: %s: write rule.%s", fset.Position(lit.Pos()), lit.Value, strings.ReplaceAll(s, ".", "_"))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d Go files checked: is %s the module's root?", checked, root)
	}
}
