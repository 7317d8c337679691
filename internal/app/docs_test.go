package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/implementation/external"
)

// docFiles are the README and every page under docs/, from this package.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

// TestDocsLinks: every relative link of the README and docs/ names a file
// that exists.
func TestDocsLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if _, err := os.Stat(filepath.Join(filepath.Dir(file), target)); err != nil {
					t.Errorf("%s:%d: the link to %s leads nowhere", strings.TrimPrefix(file, "../../"), i+1, target)
				}
			}
		}
	}
}

// TestDocsCommands: every presetsim command line in a shell block of the
// README and docs/ names a command the binary has, with flags it takes.
func TestDocsCommands(t *testing.T) {
	prog := regexp.MustCompile(`^(?:\S+/)?presetsim(?:\s|$)|^go run \./cmd/presetsim(?:\s|$)|^docker run .* presetsim:\S+\s`)
	checked := 0
	for _, file := range docFiles(t) {
		for _, c := range shellCommands(t, file) {
			loc := prog.FindStringIndex(c.text)
			if loc == nil {
				continue
			}
			_, args, err := external.ParseCommand(strings.TrimSpace(c.text[loc[1]:]))
			if err != nil {
				t.Errorf("%s:%d: %v", c.file, c.line, err)
				continue
			}
			if err := parses(args); err != nil {
				t.Errorf("%s:%d: presetsim %s: %v", c.file, c.line, strings.Join(args, " "), err)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("checked %d command lines: the docs' shell blocks were not found", checked)
	}
}

// TestHelpExamples: every example of every command's --help names a
// command the binary has, with flags it takes, and a --profile in one is a
// shipped profile.
func TestHelpExamples(t *testing.T) {
	t.Chdir("../..") // examples name files from the repository's root
	root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(strings.ReplaceAll(c.Example, "\\\n", " "), "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "presetsim ") {
				continue
			}
			_, args, err := external.ParseCommand(strings.TrimPrefix(line, "presetsim "))
			if err == nil {
				err = parses(args)
			}
			for i, a := range args {
				if a == "--profile" && i+1 < len(args) && err == nil {
					_, err = loadProfile(args[i+1])
				}
			}
			if err != nil {
				t.Errorf("%s --help: %s: %v", c.CommandPath(), line, err)
			}
			checked++
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	if checked < 20 {
		t.Errorf("checked %d examples: the help's examples were not found", checked)
	}
}

// parses finds the command args name and parses its flags, as the binary
// would, without running it.
func parses(args []string) error {
	root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("no command %q", args[0])
	}
	return cmd.ParseFlags(rest)
}

// command is one command line of a shell block.
type command struct {
	file string
	line int
	text string
}

// shellCommands are the command lines of the file's sh blocks: comments
// cut, continued lines joined, each part of a pipeline or list its own.
func shellCommands(t *testing.T, file string) []command {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(file, "../../")
	var out []command
	inBlock, start := false, 0
	var cur strings.Builder
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inBlock = true
			continue
		case strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		case !inBlock:
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if j := strings.Index(line, " # "); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, `\`) {
			cur.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		cur.WriteString(line)
		for _, part := range regexp.MustCompile(`\s*(?:&&|\|\||[|;&])\s*`).Split(cur.String(), -1) {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, command{file: name, line: start, text: part})
			}
		}
		cur.Reset()
	}
	return out
}

// TestCLIReference: docs/cli.md is every command's help, rendered from
// the command tree, so that the reference cannot go stale (go test
// ./internal/app -run TestCLIReference -update rewrites it).
func TestCLIReference(t *testing.T) {
	root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	var b strings.Builder
	b.WriteString("<!-- Generated from the command tree by `go test ./internal/app -run TestCLIReference -update`; do not edit. -->\n")
	b.WriteString("# Command reference\n\nEvery command of `presetsim` with its flags, as `presetsim COMMAND --help` prints them.\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if c != root {
			fmt.Fprintf(&b, "\n## %s\n\n%s.\n", c.CommandPath(), strings.TrimSuffix(c.Short, "."))
			if c.Runnable() {
				fmt.Fprintf(&b, "\n```\n%s\n```\n", c.UseLine())
			}
			if flags := c.NonInheritedFlags().FlagUsagesWrapped(100); flags != "" {
				fmt.Fprintf(&b, "\n```\n%s```\n", flags)
			}
		}
		subs := c.Commands()
		sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
		for _, s := range subs {
			walk(s)
		}
	}
	walk(root)
	const file = "../../docs/cli.md"
	if *update {
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./internal/app -run TestCLIReference -update writes it)", err)
	}
	if string(got) != b.String() {
		t.Errorf("docs/cli.md is stale: go test ./internal/app -run TestCLIReference -update")
	}
}
