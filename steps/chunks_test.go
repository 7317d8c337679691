package steps

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"presetsim.dev/presetsim/internal/featureloc"
)

const chunkFeature = `@feature
Feature: chunks

  Background:
    Given the cluster has 2 nodes

  Scenario: first
    When I wait 1ms

  @slow
  Scenario Outline: outline <n>
    When I wait <n>ms

    Examples:
      | n |
      | 1 |
      | 2 |

  Rule: a rule

    Background:
      Given the cluster has 3 nodes

    @tagged
    Scenario: in the rule
      When I wait 3ms

    Scenario: last
      When I wait 4ms
`

// TestKeepFS: the feature files of a chunk hold its scenarios alone, every
// line where it was (the failure messages name lines of the real file),
// and whatever a scenario needs around it (the feature's tags and
// background, its rule's) stays.
func TestKeepFS(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.feature")
	if err := os.WriteFile(path, []byte(chunkFeature), 0o644); err != nil {
		t.Fatal(err)
	}
	_, all, err := featureloc.Parse(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	stepLines := func(fsys fs.FS) map[string][]int {
		doc, pickles, err := featureloc.Parse(fsys, path)
		if err != nil {
			t.Fatal(err)
		}
		lines := featureloc.Lines(doc)
		out := map[string][]int{}
		for _, p := range pickles {
			for _, st := range p.Steps {
				out[p.Name] = append(out[p.Name], lines[st.AstNodeIds[0]])
			}
		}
		return out
	}
	whole := stepLines(nil)
	if len(all) != 5 {
		t.Fatalf("the feature has %d pickles, want 5", len(all))
	}
	for _, tc := range []struct {
		name string
		keep []int // scenario lines
		want []string
	}{
		{"the first scenario", []int{7}, []string{"first"}},
		{"an outline, all its rows", []int{11}, []string{"outline 1", "outline 2"}},
		{"a tagged scenario in a rule", []int{25}, []string{"in the rule"}},
		{"the last scenario", []int{28}, []string{"last"}},
		{"two apart", []int{7, 28}, []string{"first", "last"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keep := map[int]bool{}
			for _, l := range tc.keep {
				keep[l] = true
			}
			got := stepLines(&keepFS{keep: map[string]map[int]bool{path: keep}})
			var names []string
			for name, lines := range got {
				names = append(names, name)
				if !slices.Equal(lines, whole[name]) {
					t.Errorf("%s: steps at lines %v, want %v as in the file", name, lines, whole[name])
				}
			}
			slices.Sort(names)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(names, want) {
				t.Errorf("scenarios %v, want %v", names, want)
			}
		})
	}
}
