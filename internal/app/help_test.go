package app

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/report/reporttest"
)

// TestHelp keeps every command's --help in a golden file, so that a change
// to a command's flags, examples or words shows in review.
func TestHelp(t *testing.T) {
	commands := [][]string{
		{}, {"run"}, {"differential"}, {"apply"}, {"up"}, {"bench"}, {"serve"},
		{"report"}, {"report", "compare"}, {"report", "merge"}, {"report", "verdict"}, {"modules"}, {"completion"}, {"completion", "bash"},
		{"policy"}, {"policy", "controller"}, {"audit"}, {"explain"}, {"fuzz"}, {"rules"}, {"features"}, {"features", "export"}, {"tools"}, {"tools", "install"}, {"tools", "dir"},
	}
	for _, path := range commands {
		name := strings.Join(append([]string{"presetsim"}, path...), "-")
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := Run(context.Background(), &stdout, &stderr, append(path, "--help")); err != nil {
				t.Fatalf("--help: %v; stderr:\n%s", err, stderr.String())
			}
			reporttest.Golden(t, "help/"+name, stdout.Bytes(), *update)
		})
	}
}

// TestUsageErrors: a usage error says what is wrong and where the help is,
// on stderr, with exit status 2, as before the commands moved to cobra;
// flags may come after arguments. Mistakes in feature files are exit 4.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantCode  int
		wantInErr string
	}{
		{name: "no command", args: nil, wantCode: 2, wantInErr: "Run 'presetsim --help' for usage."},
		{name: "unknown flag", args: []string{"run", "--no-such-flag"}, wantCode: 2, wantInErr: "unknown flag: --no-such-flag"},
		{name: "apply without a file", args: []string{"apply"}, wantCode: 2, wantInErr: "presetsim apply"},
		{name: "apply with an argument", args: []string{"apply", "-f", "x.yaml", "extra"}, wantCode: 2, wantInErr: "presetsim apply"},
		{name: "a verdict ConfigMap with no API server", args: []string{"run", "--backend", "offline", "--summary-configmap", "ns/v"}, wantCode: 2, wantInErr: "--summary-configmap needs a backend with an API server, not offline"},
		{name: "shard from a job's index, outside a job", args: []string{"run", "--shard", "job/3"}, wantCode: 2, wantInErr: "JOB_COMPLETION_INDEX"},
		{name: "report without a subcommand", args: []string{"report"}, wantCode: 2, wantInErr: "Run 'presetsim report --help' for usage."},
		{name: "compare with a bad -o", args: []string{"report", "compare", "dir", "-o", "pdf"}, wantCode: 2, wantInErr: "-o must be markdown or html"},
		{name: "fuzz with no cases", args: []string{"fuzz", "--cases", "0"}, wantCode: 2, wantInErr: "--cases"},
		{name: "fuzz with an argument", args: []string{"fuzz", "extra"}, wantCode: 2, wantInErr: "presetsim fuzz"},
		{name: "run with an unknown format", args: []string{"run", "--format", "nonsense"}, wantCode: 2, wantInErr: `unknown format "nonsense"`},
		{name: "run with no concurrency", args: []string{"run", "--concurrency", "0"}, wantCode: 2, wantInErr: "--concurrency must be at least 1"},
		{name: "run with a broken tag expression", args: []string{"run", "--tags", "@R4.2 and ("}, wantCode: 2, wantInErr: "is not a tag"},
		{name: "run with a missing feature file", args: []string{"run", "no/such.feature"}, wantCode: 2, wantInErr: "feature path no/such.feature"},
		{name: "run with mistakes in the feature file", args: []string{"run", "../suitecheck/testdata/mistakes/manifests.feature"}, wantCode: 4,
			wantInErr: `3 mistakes in the feature files; nothing was run, and no rule is judged`},
		{name: "differential with a broken tag expression", args: []string{"differential", "--tags", "@a ||"}, wantCode: 2, wantInErr: "is not a tag"},
		{name: "up with negative nodes", args: []string{"up", "--nodes", "-1"}, wantCode: 2, wantInErr: "--nodes must not be negative"},
		{name: "serve without --kubeconfig", args: []string{"serve", "--ca-out", "ca.pem"}, wantCode: 2, wantInErr: "presetsim serve"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), &stdout, &stderr, tc.args)
			var exit cli.ExitError
			if !errors.As(err, &exit) || exit.Code != tc.wantCode {
				t.Fatalf("error %v, want exit status %d; stderr:\n%s", err, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantInErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantInErr, stderr.String())
			}
		})
	}
}

// TestREADMEListsEveryCommand: the README's command table names every
// command of the binary, and no command it does not have.
func TestREADMEListsEveryCommand(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `presetsim ([a-z]+)` \\|").FindAllStringSubmatch(string(data), -1) {
		listed[m[1]] = true
	}
	root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	have := map[string]bool{}
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		have[c.Name()] = true
		if !listed[c.Name()] {
			t.Errorf("README's command table does not list presetsim %s", c.Name())
		}
	}
	for name := range listed {
		if !have[name] {
			t.Errorf("README's command table lists presetsim %s, which the binary does not have", name)
		}
	}
}
