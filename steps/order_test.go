package steps

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestSlowFirst(t *testing.T) {
	files := map[string]string{
		"features/a-quick.feature":    "Feature: a\n  Scenario: s\n    Then the pod \"p\" should be as submitted\n",
		"features/b-window.feature":   "Feature: b\n  Scenario: s\n    Then the pod \"p\" should stay as submitted\n",
		"features/c-two.feature":      "Feature: c\n  Scenario: s\n    Then the pod \"p\" should stay as submitted\n    And the pod \"p\" should have no events with reason \"X\"\n",
		"features/deep/d-job.feature": "Feature: d\n  Scenario: s\n    Then the Job \"j\" should complete\n",
		"features/notes.txt":          "the pod should stay as submitted",
		"features/0-serial.feature":   "@serial\nFeature: s\n  Scenario: s\n    Then the pod \"p\" should stay as submitted\n",
		"features/1-serial.feature":   "Feature: s\n  @R2.6 @serial\n  Scenario: s\n    Then the pod \"p\" should be as submitted\n",
		"other/e-window.feature":      "Feature: e\n  Scenario: s\n    Then the pod \"p\" should stay as submitted\n",
	}
	mapFS := fstest.MapFS{}
	dir := t.TempDir()
	for name, text := range files {
		mapFS[name] = &fstest.MapFile{Data: []byte(text)}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"other/e-window.feature:3", "features/c-two.feature", "features/b-window.feature", "features/deep/d-job.feature", "features/a-quick.feature", "features/0-serial.feature", "features/1-serial.feature"}
	t.Run("an embedded suite", func(t *testing.T) {
		got := slowFirst(mapFS, []string{"other/e-window.feature:3", "features"})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("slowFirst (-want +got):\n%s", diff)
		}
	})
	t.Run("the operating system's files", func(t *testing.T) {
		got := slowFirst(nil, []string{filepath.Join(dir, "other/e-window.feature:3"), filepath.Join(dir, "features")})
		for i := range got {
			if rel, err := filepath.Rel(dir, got[i]); err == nil {
				got[i] = filepath.ToSlash(rel)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("slowFirst (-want +got):\n%s", diff)
		}
	})
	t.Run("a path that does not exist stays, for godog to report", func(t *testing.T) {
		if got := slowFirst(nil, []string{filepath.Join(dir, "missing")}); len(got) != 1 || got[0] != filepath.Join(dir, "missing") {
			t.Errorf("slowFirst = %v", got)
		}
	})
}
