package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Rejudging runs the mutants gremlins called "not covered" itself.
//
// gremlins runs a mutant only where Go's coverage profile marks its line
// as run, and the profile has blind spots: the case expressions of a
// switch and an operator outside any block (a string built after a
// closure in the same statement) belong to no block, so their mutants
// are "not covered" although the tests run them. The gate counts them,
// so each is made here, one at a time, on the staged copy gremlins
// judged, and the group's tests decide: killed when they fail, lived
// when they pass, not viable when the package no longer compiles,
// timed out after ten times the unmutated run.

// mutations is gremlins' table of what each mutation type makes of a
// token (its internal/engine/mappings.go, v0.6.0), for the types that
// make a mutant by changing one operator.
var mutations = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR, token.LSS: token.GEQ, token.NEQ: token.EQL},
	"INCREMENT_DECREMENT":   {token.DEC: token.INC, token.INC: token.DEC},
	"INVERT_NEGATIVES":      {token.SUB: token.ADD},
	"INVERT_LOGICAL":        {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":       {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
}

// judge is how one group's tests are run on a mutant: the folder the
// report's file names are relative to (gremlins' path argument), the
// packages to test ("." is the mutated file's own) and go test's flags.
type judge struct {
	stage    string
	root     string
	packages []string
	flags    []string
}

// rejudge runs every not-covered mutant of a group's report and writes
// the report back with their statuses, marked rejudged.
func rejudge(ctx context.Context, report string, j judge) error {
	data, err := os.ReadFile(report)
	if err != nil {
		return err
	}
	var r map[string]json.RawMessage
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: %w", report, err)
	}
	var files []fileResult
	if err := json.Unmarshal(r["files"], &files); err != nil {
		return fmt.Errorf("%s: files: %w", report, err)
	}
	timeout := time.Duration(0)
	for fi := range files {
		for mi := range files[fi].Mutations {
			m := &files[fi].Mutations[mi]
			if m.Status != "NOT COVERED" {
				continue
			}
			if timeout == 0 {
				if timeout, err = j.baseline(ctx, files[fi].Filename); err != nil {
					return err
				}
			}
			status, err := j.run(ctx, files[fi].Filename, *m, timeout)
			if err != nil {
				return fmt.Errorf("%s:%d:%d %s: %w", files[fi].Filename, m.Line, m.Column, m.Type, err)
			}
			fmt.Printf("%-11s %s:%d:%d %s (rejudged: not covered by gremlins)\n", status, files[fi].Filename, m.Line, m.Column, m.Type)
			m.Status, m.Rejudged = status, true
		}
	}
	if r["files"], err = json.Marshal(files); err != nil {
		return err
	}
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(report, out, 0o644)
}

// fileResult is one file of gremlins' report, kept whole but for the
// statuses rejudge changes.
type fileResult struct {
	Filename  string     `json:"file_name"`
	Mutations []mutation `json:"mutations"`
}

type mutation struct {
	Type     string `json:"type"`
	Status   string `json:"status"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Rejudged bool   `json:"rejudged,omitempty"`
}

// baseline runs the tests on the unmutated code, which must pass, and
// returns the timeout of a mutant's run.
func (j judge) baseline(ctx context.Context, file string) (time.Duration, error) {
	start := time.Now()
	if out, err := j.test(ctx, file, 0); err != nil {
		return 0, fmt.Errorf("the tests fail on the unmutated code: %w\n%s", err, tail(out))
	}
	return 10*time.Since(start) + 30*time.Second, nil
}

// run makes one mutant, runs the tests and puts the file back.
func (j judge) run(ctx context.Context, file string, m mutation, timeout time.Duration) (status string, err error) {
	path := filepath.Join(j.stage, j.root, file)
	orig, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	mutated, err := mutate(orig, m)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		return "", err
	}
	defer func() {
		if werr := os.WriteFile(path, orig, 0o644); werr != nil && err == nil {
			err = werr
		}
	}()
	if _, err := j.test(ctx, file, 0, "-run", "^$"); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "NOT VIABLE", nil // the package or its tests no longer compile
	}
	_, err = j.test(ctx, file, timeout)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return "LIVED", nil
	case errors.Is(err, context.DeadlineExceeded):
		return "TIMED OUT", nil
	case errors.As(err, &exit):
		return "KILLED", nil
	}
	return "", err
}

// test runs the group's tests, with a timeout when it is not zero.
func (j judge) test(ctx context.Context, file string, timeout time.Duration, extra ...string) ([]byte, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	args := append([]string{"test", "-count=1", "-tags", "mutation"}, j.flags...)
	args = append(args, extra...)
	for _, p := range j.packages {
		if p == "." {
			p = "./" + filepath.Join(j.root, filepath.Dir(file))
		}
		args = append(args, p)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = j.stage
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	return out, err
}

// mutate changes the operator at a mutation's line and column as
// gremlins' table says.
func mutate(src []byte, m mutation) ([]byte, error) {
	table, ok := mutations[m.Type]
	if !ok {
		return nil, fmt.Errorf("mutation type %s is not one rejudge knows", m.Type)
	}
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			return nil, fmt.Errorf("no operator at %d:%d", m.Line, m.Column)
		}
		p := f.Position(pos)
		if p.Line != m.Line || p.Column != m.Column {
			continue
		}
		to, ok := table[tok]
		if !ok {
			return nil, fmt.Errorf("%s at %d:%d, which %s does not change", tok, m.Line, m.Column, m.Type)
		}
		off := f.Offset(pos)
		out := append([]byte{}, src[:off]...)
		out = append(out, to.String()...)
		return append(out, src[off+len(tok.String()):]...), nil
	}
}

// tail is the last lines of a command's output.
func tail(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
