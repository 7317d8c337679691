package compare

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/internal/report/reporttest"
	"presetsim.dev/presetsim/outcome"
)

var update = flag.Bool("update", false, "rewrite the golden files and the runs under testdata/runs")

// runs are three implementations' results on the same scenarios: one that
// passes everything, one that fails R3.4 and does not claim init
// containers, and one that rejects conflicts as its profile declares and
// has no CRD of its own to judge.
var runs = map[string][]report.ScenarioResult{
	"reference": {
		{Name: "features/keys.feature: Identical items are skipped", Tags: []string{"@R3.4"}, Duration: time.Second,
			Checks: []outcome.CheckReport{{Step: `the pod "website" should be:`, Line: 20, Rules: []rule.ID{rule.R3_4}, Outcome: outcome.Passed}}},
		{Name: "features/conflict.feature: A conflict applies no preset", Tags: []string{"@R4.2"}, Duration: time.Second,
			Checks: []outcome.CheckReport{{Step: `the pod "website" should be as submitted`, Line: 30, Rules: []rule.ID{rule.R4_2}, Outcome: outcome.Passed}}},
		{Name: "features/injection.feature: Init containers", Tags: []string{"@R3.2", "@initContainers"}, Duration: time.Second,
			Checks: []outcome.CheckReport{{Step: `the pod "website" should be:`, Line: 40, Rules: []rule.ID{rule.R3_2}, Outcome: outcome.Passed}}},
		{Name: "features/validation.feature: The name is at most 53 characters", Tags: []string{"@R1.6"}, Duration: time.Second,
			Checks: []outcome.CheckReport{{Step: "the request should be rejected with:", Line: 50, Rules: []rule.ID{rule.R1_6}, Outcome: outcome.Passed}}},
	},
	"kubernetes-1.19": {
		{Name: "features/keys.feature: Identical items are skipped", Tags: []string{"@R3.4"}, Duration: time.Second, Failed: true,
			Failure: "spec.containers[web].envFrom: want 1 item, got 2",
			Checks:  []outcome.CheckReport{{Step: `the pod "website" should be:`, Line: 20, Rules: []rule.ID{rule.R3_4}, Outcome: outcome.Failed, Detail: "want 1 item, got 2"}}},
		{Name: "features/conflict.feature: A conflict applies no preset", Tags: []string{"@R4.2"}, Duration: time.Second,
			Checks: []outcome.CheckReport{{Step: `the pod "website" should be as submitted`, Line: 30, Rules: []rule.ID{rule.R4_2}, Outcome: outcome.Passed}}},
		{Name: "features/injection.feature: Init containers", Tags: []string{"@R3.2", "@initContainers"}, NotClaimed: "initContainers"},
		{Name: "features/validation.feature: The name is at most 53 characters", Tags: []string{"@R1.6"}, Duration: time.Second,
			Checks: []outcome.CheckReport{{Step: "the request should be rejected with:", Line: 50, Rules: []rule.ID{rule.R1_6}, Outcome: outcome.Passed}}},
	},
	"kubeflow": {
		{Name: "features/keys.feature: Identical items are skipped", Tags: []string{"@R3.4"}, Duration: time.Second,
			Checks: []outcome.CheckReport{{Step: `the pod "website" should be:`, Line: 20, Rules: []rule.ID{rule.R3_4}, Outcome: outcome.Passed}}},
		{Name: "features/conflict.feature: A conflict applies no preset", Tags: []string{"@R4.2"}, Duration: time.Second,
			Checks: []outcome.CheckReport{{Step: "the request should succeed", Line: 28, Rules: []rule.ID{rule.R4_2}, Outcome: outcome.Differs,
				Detail: "profile kubeflow-poddefault declares conflicts: reject"}}},
		{Name: "features/injection.feature: Init containers", Tags: []string{"@R3.2", "@initContainers"}, NotClaimed: "initContainers"},
		{Name: "features/validation.feature: The name is at most 53 characters", Tags: []string{"@R1.6"},
			NotApplicable: "the profile has no CRD of its own: the harness would judge its own"},
	},
}

var order = []string{"reference", "kubernetes-1.19", "kubeflow"}

// implementations are the runs' implementations as a run names them: the
// profile's name and version, then what ran (a real one is that long).
var implementations = map[string]string{
	"reference":       "reference",
	"kubernetes-1.19": "kubernetes-1.19",
	"kubeflow":        "kubeflow-poddefault 41ee8e7 (https://127.0.0.1:39847/apply-poddefault, started by presetsim)",
}

func runDirs() []string {
	var dirs []string
	for _, name := range order {
		dirs = append(dirs, filepath.Join("testdata", "runs", name))
	}
	return dirs
}

// writeRuns rewrites testdata/runs from the results above (with -update).
func writeRuns(t *testing.T) {
	t.Helper()
	for i, name := range order {
		dir := runDirs()[i]
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := report.Build(implementations[name], "presetsim, Kubernetes v1.37.1", "envtest", runs[name]).WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "summary.json"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func matrix(t *testing.T) *Matrix {
	t.Helper()
	if *update {
		writeRuns(t)
	}
	read, err := Read(runDirs())
	if err != nil {
		t.Fatal(err)
	}
	return Build(read)
}

func TestBuild(t *testing.T) {
	m := matrix(t)
	cell := func(id rule.ID, run int) Cell {
		for _, r := range m.Rows {
			if r.ID == id {
				return r.Cells[run]
			}
		}
		t.Fatalf("no row for %s", id)
		return Cell{}
	}
	tests := []struct {
		name    string
		rule    rule.ID
		run     int
		outcome outcome.Outcome
		note    string
	}{
		{"a pass", rule.R3_4, 0, outcome.Passed, ""},
		{"a failure names its failing check", rule.R3_4, 1, outcome.Failed, `features/keys.feature: Identical items are skipped: the pod "website" should be: → R3.4`},
		{"a declared difference names the declaration", rule.R4_2, 2, outcome.Differs, "profile kubeflow-poddefault declares conflicts: reject"},
		{"an unclaimed capability says so", rule.R3_2, 1, outcome.NotClaimed, "needs @initContainers, which the profile does not claim"},
		{"an inapplicable rule says why", rule.R1_6, 2, outcome.NotApplicable, "the profile has no CRD of its own: the harness would judge its own"},
		{"a rule no scenario checks", rule.R5_1, 0, outcome.Untested, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cell(tc.rule, tc.run)
			if c.Outcome != tc.outcome {
				t.Errorf("%s for %s: %s, want %s", tc.rule, m.Runs[tc.run].Name, c.Outcome, tc.outcome)
			}
			if tc.note != "" && (len(c.Notes) != 1 || c.Notes[0] != tc.note) {
				t.Errorf("%s for %s: notes %q, want [%q]", tc.rule, m.Runs[tc.run].Name, c.Notes, tc.note)
			}
		})
	}
	for _, r := range m.Rows {
		want := r.ID != rule.R3_4 && r.ID != rule.R4_2 && r.ID != rule.R3_2 && r.ID != rule.R1_6
		if r.Agree != want {
			t.Errorf("%s: agree %v, want %v", r.ID, r.Agree, want)
		}
	}
}

// pixels reads a number the page's script wrote into a body attribute.
func pixels(dom, attr string) int {
	var n int
	if i := strings.Index(dom, attr+`="`); i >= 0 {
		fmt.Sscanf(dom[i+len(attr)+2:], "%d", &n)
	}
	return n
}

// TestHeadersAndLinks: a column header is the implementation as its
// profile names it, without what ran it, and at most 32 characters; a run
// with a report.html beside its summary is linked from the page's folder.
func TestHeadersAndLinks(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"reference", "reference"},
		{"redhat-cop podpreset-webhook 4bf4993 (https://127.0.0.1:9443/mutate)", "redhat-cop podpreset-webhook 4b…"},
		{"presetsim PodPreset v1 (MutatingAdmissionPolicy compiled from the presets)", "presetsim PodPreset v1"},
	} {
		if got := (Run{Name: tc.name}).Header(); got != tc.want {
			t.Errorf("Header(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	dir := t.TempDir()
	runDir := filepath.Join(dir, "runs", "ref")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "runs", "reference", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{"summary.json": data, "report.html": []byte("<html></html>")} {
		if err := os.WriteFile(filepath.Join(runDir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read, err := Read([]string{runDir, filepath.Join("testdata", "runs", "kubeflow")})
	if err != nil {
		t.Fatal(err)
	}
	m := Build(read)
	m.Base = filepath.Join(dir, "out")
	if got := m.Link(m.Runs[0]); got != "../runs/ref/report.html" {
		t.Errorf("link to the run's report: %q, want ../runs/ref/report.html", got)
	}
	if got := m.Link(m.Runs[1]); got != "" {
		t.Errorf("a run without report.html is linked: %q", got)
	}
}

func TestWriters(t *testing.T) {
	reporttest.GoldenFiles(t, matrix(t).Files(), *update)
}

// TestHTMLRendersInChromium: the page's script runs, the column headers
// are small, a failure's diff stands under it, every rule has a row, and
// the box hides exactly the rules on which the runs agree.
func TestHTMLRendersInChromium(t *testing.T) {
	var b bytes.Buffer
	m := matrix(t)
	if err := m.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	dom := reporttest.Render(t, b.Bytes())
	widest, tallest := pixels(dom, "data-widest-header"), pixels(dom, "data-tallest-header")
	// Measured: 159 × 68 px with the short headers, 241 × 107 px with the
	// runs' full names (a webhook URL among them) as headers.
	if widest == 0 || widest > 200 || tallest > 80 {
		t.Errorf("the widest column header is %d px and the tallest %d px, want at most 200 and 80: headers are short, the runs list has the names in full", widest, tallest)
	}
	if !strings.Contains(dom, "<pre>spec.containers[web].envFrom: want 1 item, got 2</pre>") {
		t.Error("the failure's message and diff are not under it")
	}
	if n := strings.Count(dom, `class="rule"`); n != len(rule.All) {
		t.Errorf("the matrix has %d rule rows, want %d", n, len(rule.All))
	}
	if n := strings.Count(dom, `data-agree="false"`); n != 4 {
		t.Errorf("%d rows where the runs differ, want 4", n)
	}
}

// TestReadBadInput: every unreadable summary is refused with its file and,
// where it has one, the line or field.
func TestReadBadInput(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"malformed JSON", "{\n  \"implementation\": \"x\",\n  \"rules\": [,]\n}", "summary.json: line 3: invalid character ','"},
		{"a wrong type", "{\n  \"implementation\": 7\n}", "summary.json: line 2: field implementation: json: cannot unmarshal number"},
		{"an unknown field", `{"implementation": "x", "rulez": []}`, `summary.json: json: unknown field "rulez"`},
		{"no implementation", `{"apiVersion": "presetsim.dev/v1alpha1", "kind": "ConformanceReport", "rules": [{"id": "R2.1", "outcome": "pass"}]}`, "summary.json: field implementation: missing"},
		{"no rules", `{"apiVersion": "presetsim.dev/v1alpha1", "kind": "ConformanceReport", "implementation": "x"}`, "summary.json: field rules: empty"},
		{"an outcome that is none", "{\n  \"implementation\": \"x\",\n  \"rules\": [\n    {\"id\": \"R2.1\", \"outcome\": \"passed\"}\n  ]\n}", `summary.json: line 4: "passed" is no outcome`},
		{"no version", `{"implementation": "x", "rules": [{"id": "R2.1", "outcome": "pass"}]}`, "summary.json: no apiVersion and kind"},
		{"another version", `{"apiVersion": "presetsim.dev/v2", "kind": "ConformanceReport", "implementation": "x"}`, `summary.json: apiVersion "presetsim.dev/v2", kind "ConformanceReport": not a report this presetsim reads`},
		{"a rule without outcome", `{"apiVersion": "presetsim.dev/v1alpha1", "kind": "ConformanceReport", "implementation": "x", "rules": [{"id": "R2.1"}]}`, "summary.json: field rules[0]: a rule needs an id and an outcome"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read([]string{dir})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := Read([]string{filepath.Join(t.TempDir(), "nothing")}); err == nil || !strings.Contains(err.Error(), "nothing") {
		t.Errorf("a missing summary gave %v, want an error naming it", err)
	}
	if _, err := Read(nil); err == nil {
		t.Error("no folders gave no error")
	}
}

// TestDuplicateNames: runs of one implementation are told apart in the
// list and in the columns' headers, by as much of their folders as
// differs, or by a number when they are the same folder.
func TestDuplicateNames(t *testing.T) {
	summary, err := os.ReadFile(filepath.Join(runDirs()[0], "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, run := range []string{"a/ref", "b/ref"} {
		if err := os.MkdirAll(filepath.Join(dir, run), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, run, "summary.json"), summary, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		folders []string
		headers []string
	}{
		{name: "folders of one base name", folders: []string{"a/ref", "b/ref"}, headers: []string{"reference (a/ref)", "reference (b/ref)"}},
		{name: "the same folder twice", folders: []string{"a/ref", "a/ref"}, headers: []string{"reference #1", "reference #2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paths []string
			for _, f := range tt.folders {
				paths = append(paths, filepath.Join(dir, f))
			}
			read, err := Read(paths)
			if err != nil {
				t.Fatal(err)
			}
			if read[0].Name == read[1].Name {
				t.Errorf("two runs of one implementation share the name %q", read[0].Name)
			}
			for i, want := range tt.headers {
				if got := read[i].Header(); got != want {
					t.Errorf("run %d: header %q, want %q", i+1, got, want)
				}
			}
		})
	}
}
