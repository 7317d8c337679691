package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/backends/envtest"
)

// workflow is what the test reads of a GitHub Actions workflow.
type workflow struct {
	Jobs map[string]struct {
		Steps []step `json:"steps"`
	} `json:"jobs"`
}

type step struct {
	Name string `json:"name"`
	Uses string `json:"uses"`
	Run  string `json:"run"`
}

// ciWorkflows reads docs/ci.md's workflows, in order: the implementation's
// job, then the platform's; and its Markdown block, the summary shown.
func ciWorkflows(t *testing.T) (implementation, platform []step, summary string) {
	t.Helper()
	data, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```(yaml|markdown)\n(.*?)^```\n").FindAllStringSubmatch(string(data), -1)
	var jobs [][]step
	for _, b := range blocks {
		if b[1] == "markdown" {
			summary = b[2]
			continue
		}
		var w workflow
		if err := yaml.Unmarshal([]byte(b[2]), &w); err != nil {
			t.Fatalf("docs/ci.md: a workflow that is not YAML: %v", err)
		}
		if len(w.Jobs) != 1 {
			t.Fatalf("docs/ci.md: a workflow with %d jobs, want 1", len(w.Jobs))
		}
		for _, j := range w.Jobs {
			jobs = append(jobs, j.Steps)
		}
	}
	if len(jobs) != 2 || summary == "" {
		t.Fatalf("docs/ci.md: %d workflows and a summary %t, want 2 and true", len(jobs), summary != "")
	}
	return jobs[0], jobs[1], summary
}

// ciEnv is the environment of a CI step in the test: presetsim is the
// binary the test built, the control-plane binaries are in a user cache of the test's own
// (as a job with its cache restored has them), GitHub's files are the
// test's.
type ciEnv struct {
	dir, outputFile, summaryFile string
	env                          []string
}

func newCIEnv(t *testing.T, dir, presetsim string) *ciEnv {
	t.Helper()
	bins, err := envtest.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	shims := filepath.Join(home, "bin")
	cacheHome := filepath.Join(home, "cache")
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	cache, err := envtest.UserCache()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{shims, cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(bins)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(bins, e.Name()), filepath.Join(cache, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(presetsim, filepath.Join(shims, "presetsim")); err != nil {
		t.Fatal(err)
	}
	c := &ciEnv{dir: dir, outputFile: filepath.Join(home, "output"), summaryFile: filepath.Join(home, "summary")}
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != envtest.BinDirEnv && name != envtest.AssetsEnv && name != "PATH" {
			c.env = append(c.env, kv)
		}
	}
	c.env = append(c.env, "PATH="+shims+":"+cache+":"+os.Getenv("PATH"),
		"GITHUB_OUTPUT="+c.outputFile, "GITHUB_STEP_SUMMARY="+c.summaryFile, "GITHUB_BASE_REF=main",
		"GIT_AUTHOR_NAME=ci", "GIT_AUTHOR_EMAIL=ci@example.com", "GIT_COMMITTER_NAME=ci", "GIT_COMMITTER_EMAIL=ci@example.com")
	return c
}

// run runs a step's script as GitHub runs one (bash -eo pipefail) and
// returns its exit status and output.
func (c *ciEnv) run(t *testing.T, s step) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("step %q: %v", s.Name, err)
	}
	return 0, string(out)
}

// skipped says why the test does not run a step ("" when it does).
func skipped(s step) string {
	switch {
	case s.Uses != "":
		return "an action of GitHub's own"
	case s.Name == "Install presetsim":
		return "the test builds presetsim from this repository"
	case s.Name == "Build the webhook":
		return "bin/webhook is presetsim serve here"
	}
	return ""
}

// TestCIRecipes runs docs/ci.md's two jobs, every run: step as written,
// on the repository's own examples. The implementation's job is the whole
// built-in suite and generated cases against the reference served out of
// process by presetsim serve, through the command line: the external path
// end to end (conformance/outside_test.go takes it through the Go API).
func TestCIRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on this host: the platform job reads git revisions")
	}
	implementation, platform, summary := ciWorkflows(t)
	// The binary a job installs: built as a user's go install builds it,
	// without the race detector this test binary has (a run and a fuzz run
	// under it take minutes more, and the race detector adds nothing to
	// what the steps' exit statuses say).
	presetsim := filepath.Join(t.TempDir(), "presetsim")
	build := exec.Command("go", "build", "-o", presetsim, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	t.Run("implementation", func(t *testing.T) {
		dir := t.TempDir()
		c := newCIEnv(t, dir, presetsim)
		profile, err := os.ReadFile("../../profiles/reference.yaml")
		if err != nil {
			t.Fatal(err)
		}
		webhook := "#!/bin/sh\nexec presetsim serve \"$@\"\n"
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string][]byte{"presetsim-profile.yaml": profile, "bin/webhook": []byte(webhook)} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		ran := 0
		for _, s := range implementation {
			if why := skipped(s); why != "" {
				t.Logf("not run: %s (%s)", stepName(s), why)
				continue
			}
			code, out := c.run(t, s)
			if code != 0 {
				t.Fatalf("step %q: exit status %d, want 0:\n%s", s.Name, code, out)
			}
			ran++
		}
		if ran < 4 {
			t.Errorf("ran %d steps, want the cache's, tools install, run and fuzz", ran)
		}
		cache, _ := envtest.UserCache()
		if got, _ := os.ReadFile(c.outputFile); string(got) != "dir="+cache+"\n" {
			t.Errorf("the step's output %q, want dir=%s", got, cache)
		}
		for _, f := range []string{"reports/conformance/junit.xml", "reports/conformance/report.html", "reports/conformance/summary.json", "reports/fuzz/fuzz.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("no artifact %s: %v", f, err)
			}
		}
	})

	t.Run("platform", func(t *testing.T) {
		repo := t.TempDir()
		c := newCIEnv(t, repo, presetsim)
		git := func(args ...string) {
			t.Helper()
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = repo, c.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		if err := os.CopyFS(filepath.Join(repo, "platform"), os.DirFS("../../examples/platform")); err != nil {
			t.Fatal(err)
		}
		git("init", "-q", "-b", "main")
		git("add", ".")
		git("commit", "-qm", "the shop's presets and workloads")
		git("update-ref", "refs/remotes/origin/main", "HEAD")

		var gate, review step
		for _, s := range platform {
			switch {
			case skipped(s) != "":
				t.Logf("not run: %s (%s)", stepName(s), skipped(s))
			case gate.Run == "":
				gate = s
			case review.Run == "":
				review = s
			default:
				t.Fatalf("a step the test does not know: %q", s.Name)
			}
		}
		if code, out := c.run(t, gate); code != 0 {
			t.Fatalf("%q on the base: exit status %d, want 0:\n%s", gate.Name, code, out)
		}

		changed, err := filepath.Glob("../../examples/platform-change/presets/*.yaml")
		if err != nil || len(changed) == 0 {
			t.Fatalf("no change in examples/platform-change: %v", err)
		}
		for _, f := range changed {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, "platform", "presets", filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("checkout", "-qb", "pooler")
		git("commit", "-qam", "the batch tier gets the database, through the pooler")
		for _, s := range []step{gate, review} {
			if code, out := c.run(t, s); code != 3 {
				t.Errorf("%q on the change: exit status %d, want 3 (a pod now in conflict):\n%s", s.Name, code, out)
			}
		}
		got, err := os.ReadFile(c.summaryFile)
		if err != nil {
			t.Fatalf("no job summary: %v", err)
		}
		if string(got) != summary {
			t.Errorf("the job summary is not docs/ci.md's:\n%s\nwant:\n%s", got, summary)
		}
	})
}

func stepName(s step) string {
	if s.Name != "" {
		return s.Name
	}
	return s.Uses
}
