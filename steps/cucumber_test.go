package steps_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

// TestCucumberIsGodogs: the Cucumber report made as scenarios end says
// what godog's cucumber format says of the same run — features,
// scenarios, tags, steps with their keywords, lines, DocStrings, tables
// and statuses — apart from the time each step took, and a skipped
// step's reason, which godog leaves out.
func TestCucumberIsGodogs(t *testing.T) {
	w := startWorld(t, harness.Options{Backend: offline.New()})
	var godogs bytes.Buffer
	ours := steps.NewCucumber()
	steps.Run(w, steps.SuiteOptions{
		Paths:  []string{"../features/simple.feature", "../features/keys.feature", "../features/deployment.feature"},
		Format: "cucumber", Output: &godogs, Cucumber: ours,
	})
	var mine bytes.Buffer
	if err := ours.Write(&mine); err != nil {
		t.Fatal(err)
	}
	want, got := cucumberScenarios(t, godogs.Bytes()), cucumberScenarios(t, mine.Bytes())
	if len(want) == 0 {
		t.Fatal("godog's report holds no scenario")
	}
	for key, w := range want {
		if g, ok := got[key]; !ok {
			t.Errorf("%s: missing", key)
		} else if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %s\nwant %s", key, mustJSON(t, g), mustJSON(t, w))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d scenarios, godog's report %d", len(got), len(want))
	}
}

// cucumberScenarios reads a Cucumber JSON report into its scenarios by
// feature file and line, each with its feature's fields, without the
// steps' durations and the skipped steps' messages.
func cucumberScenarios(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var features []map[string]any
	if err := json.Unmarshal(data, &features); err != nil {
		t.Fatalf("not a Cucumber report: %v\n%s", err, data)
	}
	out := map[string]any{}
	for _, f := range features {
		elements, _ := f["elements"].([]any)
		delete(f, "elements")
		for _, e := range elements {
			el := e.(map[string]any)
			steps, _ := el["steps"].([]any)
			for _, s := range steps {
				step := s.(map[string]any)
				delete(step, "match")
				result := step["result"].(map[string]any)
				delete(result, "duration")
				if result["status"] == "skipped" {
					delete(result, "error_message")
				}
			}
			el["feature"] = f
			out[f["uri"].(string)+":"+string(mustJSON(t, el["line"]))] = el
		}
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
