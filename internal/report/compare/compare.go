package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// Absent is a cell's outcome when the run's summary does not list the
// rule; it is no outcome a run can come to.
const Absent outcome.Outcome = "absent"

// Run is one implementation's run: its summary and where it was read.
type Run struct {
	// Name is the summary's implementation, with its folder when two runs
	// share one; Header shortens it for the implementation's column.
	Name    string
	Source  string
	Summary *outcome.Report
	// Report is the run's report.html, beside its summary, when it has one.
	Report string
	// header is the column's header when Read had to tell it from
	// another run's (Header's otherwise).
	header string
}

// Cell is one rule's outcome for one implementation.
type Cell struct {
	Outcome outcome.Outcome
	// Scenarios are how many of the run's scenarios are tagged with the rule.
	Scenarios int
	// Failed are the failed scenarios credited to the rule.
	Failed int
	// Notes say why: each failed scenario with its failing check, or the
	// declaration or reason of a rule that differs, is not claimed or does
	// not apply.
	Notes []string
	// Details are, for a failure, each failed scenario's message and diff,
	// beside its note.
	Details []string
}

// Row is a rule across the implementations.
type Row struct {
	rule.Rule
	Cells []Cell
	// Agree is true when every implementation has the same outcome.
	Agree bool
}

// Matrix is the comparison of several runs.
type Matrix struct {
	Runs []Run
	Rows []Row
	// Base is the folder the page is written in, for links to each run's
	// report.html ("" for the working directory).
	Base string
}

// Read reads each path's summary: a run's report folder (its
// summary.json) or a summary file.
func Read(paths []string) ([]Run, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no report folders to compare")
	}
	var runs []Run
	for _, p := range paths {
		file := p
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			file = filepath.Join(p, "summary.json")
		}
		s, err := readSummary(file)
		if err != nil {
			return nil, err
		}
		run := Run{Name: s.Implementation, Source: file, Summary: s}
		if html := filepath.Join(filepath.Dir(file), "report.html"); fileExists(html) {
			run.Report = html
		}
		runs = append(runs, run)
	}
	uniqueNames(runs)
	return runs, nil
}

// readSummary reads and checks one summary file; errors name the file and,
// for malformed JSON, the line.
func readSummary(file string) (*outcome.Report, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("unable to read a run's summary: %w", err)
	}
	s := &outcome.Report{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("%s: %s", file, jsonError(data, err))
	}
	if err := s.CheckVersion(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	switch {
	case s.Implementation == "":
		return nil, fmt.Errorf("%s: field implementation: missing (is this a presetsim summary.json?)", file)
	case len(s.Rules) == 0:
		return nil, fmt.Errorf("%s: field rules: empty (is this a presetsim summary.json?)", file)
	}
	for i, r := range s.Rules {
		if r.ID == "" || r.Outcome == "" {
			return nil, fmt.Errorf("%s: field rules[%d]: a rule needs an id and an outcome", file, i)
		}
	}
	return s, nil
}

// jsonError says where in data a decoding error is, by line.
func jsonError(data []byte, err error) string {
	var offset int64 = -1
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var invalid *outcome.InvalidError
	switch {
	case errors.As(err, &invalid):
		// The decoder says not where a value was refused: the first place
		// the refused value stands is where it is.
		if i := bytes.Index(data, []byte(strconv.Quote(invalid.Text))); i >= 0 {
			return fmt.Sprintf("line %d: %v", lineOf(data, int64(i)), err)
		}
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
		if typ.Field != "" {
			return fmt.Sprintf("line %d: field %s: %v", lineOf(data, offset), typ.Field, err)
		}
	}
	if offset < 0 {
		return err.Error()
	}
	return fmt.Sprintf("line %d: %v", lineOf(data, offset), err)
}

func lineOf(data []byte, offset int64) int {
	offset = min(offset, int64(len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// uniqueNames adds the folder to the names two runs share, and a number
// when they share the folder too; the column headers of such runs end with
// as many of their folders' last elements as tell them apart ("reference
// (a/ref)" and "reference (b/ref)"), or with the number.
func uniqueNames(runs []Run) {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Name]++
	}
	seen := map[string]int{}
	for i, r := range runs {
		if count[r.Name] > 1 {
			runs[i].Name = fmt.Sprintf("%s (%s)", r.Name, filepath.Dir(r.Source))
		}
		if seen[runs[i].Name]++; seen[runs[i].Name] > 1 {
			runs[i].Name = fmt.Sprintf("%s #%d", runs[i].Name, seen[runs[i].Name])
		}
	}
	headers := map[string][]int{}
	for i, r := range runs {
		headers[r.Header()] = append(headers[r.Header()], i)
	}
	for header, same := range headers {
		if len(same) < 2 {
			continue
		}
		folders := make([]string, len(same))
		for j, i := range same {
			folders[j] = filepath.Dir(runs[i].Source)
		}
		tails := distinctTails(folders)
		for j, i := range same {
			if tails == nil {
				runs[i].header = fmt.Sprintf("%s #%d", header, j+1)
			} else {
				runs[i].header = fmt.Sprintf("%s (%s)", header, tails[j])
			}
		}
	}
}

// distinctTails is, for each folder, its last elements, as few as tell
// every folder from the others; nil when two are the same folder.
func distinctTails(folders []string) []string {
	split := make([][]string, len(folders))
	longest := 0
	for i, f := range folders {
		split[i] = strings.Split(filepath.ToSlash(filepath.Clean(f)), "/")
		longest = max(longest, len(split[i]))
	}
	for k := 1; k <= longest; k++ {
		tails := make([]string, len(split))
		seen := map[string]bool{}
		for i, parts := range split {
			tails[i] = strings.Join(parts[max(0, len(parts)-k):], "/")
			seen[tails[i]] = true
		}
		if len(seen) == len(tails) {
			return tails
		}
	}
	return nil
}

// Build compares the runs: the rules of the specification in order, then
// any other rule a summary lists.
func Build(runs []Run) *Matrix {
	m := &Matrix{Runs: runs}
	rules := slices.Clone(rule.All)
	for _, run := range runs {
		for _, r := range run.Summary.Rules {
			if !slices.ContainsFunc(rules, func(known rule.Rule) bool { return known.ID == r.ID }) {
				rules = append(rules, r.Rule)
			}
		}
	}
	for _, r := range rules {
		row := Row{Rule: r, Agree: true}
		for _, run := range runs {
			cell := cellOf(run.Summary, r.ID)
			row.Agree = row.Agree && (len(row.Cells) == 0 || row.Cells[0].Outcome == cell.Outcome)
			row.Cells = append(row.Cells, cell)
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// cellOf is a rule's outcome in a summary, with its reasons.
func cellOf(s *outcome.Report, id rule.ID) Cell {
	i := slices.IndexFunc(s.Rules, func(r outcome.RuleReport) bool { return r.ID == id })
	if i < 0 {
		return Cell{Outcome: Absent}
	}
	r := s.Rules[i]
	c := Cell{Outcome: r.Outcome, Scenarios: r.Scenarios, Failed: len(r.Failed)}
	switch r.Outcome {
	case outcome.Failed:
		for _, name := range r.Failed {
			c.Notes = append(c.Notes, failureNote(s, name))
			detail := ""
			if sc := scenario(s, name); sc != nil {
				detail = sc.Failure
			}
			c.Details = append(c.Details, detail)
		}
	case outcome.Differs:
		c.Notes = reasons(s, r.Declared)
	case outcome.NotClaimed:
		c.Notes = reasons(s, r.Unclaimed)
	case outcome.NotApplicable:
		c.Notes = reasons(s, r.Inapplicable)
	case outcome.Unsupported:
		c.Notes = reasons(s, r.NotRunOn)
	}
	return c
}

// failureNote is a failed scenario with its failing check.
func failureNote(s *outcome.Report, name string) string {
	sc := scenario(s, name)
	if sc == nil || sc.FailedCheck == "" {
		return name
	}
	return name + ": " + sc.FailedCheck
}

// reasons are the scenarios' distinct reasons, in order.
func reasons(s *outcome.Report, names []string) []string {
	var out []string
	for _, name := range names {
		reason := ""
		if sc := scenario(s, name); sc != nil {
			reason = sc.Reason
		}
		if reason != "" && !slices.Contains(out, reason) {
			out = append(out, reason)
		}
	}
	return out
}

func scenario(s *outcome.Report, name string) *outcome.ScenarioReport {
	for i := range s.Scenarios {
		if s.Scenarios[i].Name == name {
			return &s.Scenarios[i]
		}
	}
	return nil
}

// Text is a cell's outcome in words: "fail (2 of 5)", "pass", "—".
func (c Cell) Text() string {
	switch c.Outcome {
	case Absent:
		return "—"
	case outcome.Failed:
		return fmt.Sprintf("fail (%d of %d)", c.Failed, max(c.Scenarios, c.Failed))
	}
	return string(c.Outcome)
}

// Header is the run's column header: the implementation as its profile
// names it, without what ran it (in parentheses), at most 32 characters;
// the list of runs above the matrix has it in full.
func (r Run) Header() string {
	if r.header != "" {
		return r.header
	}
	name, _, _ := strings.Cut(r.Name, " (")
	if runes := []rune(name); len(runes) > 32 {
		name = string(runes[:31]) + "…"
	}
	return name
}

// Link is the path of a run's report.html from the page's folder, "" when
// the run has none.
func (m *Matrix) Link(r Run) string {
	if r.Report == "" {
		return ""
	}
	base := m.Base
	if base == "" {
		base = "."
	}
	abs, err1 := filepath.Abs(r.Report)
	absBase, err2 := filepath.Abs(base)
	if err1 != nil || err2 != nil {
		return r.Report
	}
	rel, err := filepath.Rel(absBase, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// Verdict is a run's verdict: "PASSED" or "FAILED", with how many of its
// scenarios did not run.
func (r Run) Verdict() string { return r.Summary.Verdict() }

// Totals are a run's scenario counts in words.
func (r Run) Totals() string { return r.Summary.Totals.String() }

// Explained are the cells with notes, by implementation then rule: the
// failures and the declared differences a reader wants spelled out.
func (m *Matrix) Explained() []Explanation {
	var out []Explanation
	for i, run := range m.Runs {
		for _, row := range m.Rows {
			c := row.Cells[i]
			if len(c.Notes) > 0 && (c.Outcome == outcome.Failed || c.Outcome == outcome.Differs) {
				e := Explanation{Run: run.Name, Rule: row.ID, Outcome: c.Outcome}
				for j, n := range c.Notes {
					item := Item{Note: n}
					if j < len(c.Details) {
						item.Detail = c.Details[j]
					}
					e.Items = append(e.Items, item)
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// Explanation is one implementation's failure or difference on one rule.
type Explanation struct {
	Run     string
	Rule    rule.ID
	Outcome outcome.Outcome
	Items   []Item
}

// Item is one reason of an explanation: a failed scenario and its failing
// check with the failure's message and diff, or a declaration.
type Item struct{ Note, Detail string }

// escapeMarkdown keeps text literal in Markdown, inside a table cell too:
// a pipe would end the cell, "<name>" would read as an HTML tag.
func escapeMarkdown(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
