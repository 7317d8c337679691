package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// ScenarioResult is one scenario's result, as the harness reports it.
type ScenarioResult struct {
	// Name is "<feature file>: <scenario name>", unique in a run.
	Name        string
	Tags        []string
	Duration    time.Duration
	Failed      bool
	Failure     string // the first failure's text
	Unsupported string // why the backend could not run it
	NotClaimed  string // the capability the profile does not claim
	// NotApplicable says why the scenario does not apply to the
	// implementation under test.
	NotApplicable string
	// Checks are what the scenario's steps established or failed to; when
	// there are none, the scenario's outcome is credited to its rule tags.
	Checks []outcome.CheckReport
	// Findings are what the implementation did with the scenario's
	// requests its registration does not send it (outcome.Finding).
	Findings []outcome.Finding
}

// Results turns how a run's scenarios went into the results a report is
// built from.
func Results(timings []outcome.Scenario) []ScenarioResult {
	results := make([]ScenarioResult, len(timings))
	for i, t := range timings {
		results[i] = ScenarioResult{Name: t.Scenario, Tags: t.Tags, Duration: t.Duration, Failed: t.Failed,
			Unsupported: t.Unsupported, NotClaimed: t.NotClaimed, NotApplicable: t.NotApplicable, Findings: t.Findings}
		if t.Err != nil {
			results[i].Failure = t.Err.Error()
		}
		for _, c := range t.Checks {
			rc := outcome.CheckReport{Step: c.Step, Line: c.Line, Rules: c.Rules, Outcome: c.Outcome, Detail: c.Reason, SettleSeconds: c.Window.Seconds()}
			if c.Err != nil && c.Outcome == outcome.Failed {
				rc.Detail = c.Err.Error()
			}
			results[i].Checks = append(results[i].Checks, rc)
		}
	}
	return results
}

// OfRun is the report of a run on w: the implementation as reports name it,
// the harness and the Kubernetes it ran against, and its scenarios.
func OfRun(implementation string, w *harness.World, scenarios []outcome.Scenario) *outcome.Report {
	version := "presetsim, in memory"
	if w.ServerVersion != "" {
		version = "presetsim, Kubernetes " + w.ServerVersion
	}
	s := Build(implementation, version, string(w.Backend), Results(scenarios))
	s.Coverage = outcome.CoverageOf(s, DeclaredAway(w.Profile, w.Timeouts.Wait))
	return s
}

// DeclaredAway are the rules a profile's declarations keep a run from
// seeing broken, with the declaration: a propagation window (R6.1) longer
// than the longest a step waits (wait), within which every outcome is
// right.
func DeclaredAway(p *profile.Profile, wait time.Duration) map[rule.ID]string {
	if p == nil || wait <= 0 || p.Propagation() <= wait {
		return nil
	}
	return map[rule.ID]string{rule.R6_1: fmt.Sprintf("propagation: %s, longer than the %s the run waits", p.Propagation(), wait)}
}

// Build makes the summary of a run. A rule's outcome comes from the checks
// credited to it: failed when a check credited to it failed, differs when
// one differed as the profile declares, passed when one passed, and
// otherwise from the scenarios tagged with it that did not run. A rule id
// the specification does not define is not dropped: it is listed after the
// specification's rules, titled as such.
func Build(implementation, version, backend string, results []ScenarioResult) *outcome.Report {
	s := &outcome.Report{APIVersion: outcome.ReportAPIVersion, Kind: outcome.ReportKind, Implementation: implementation, Version: version, Backend: backend, Passed: true,
		Totals: outcome.Counts{outcome.Passed: 0, outcome.Failed: 0, outcome.Differs: 0, outcome.Unsupported: 0,
			outcome.NotClaimed: 0, outcome.NotApplicable: 0}}
	rules := slices.Clone(rule.All)
	byRule := map[rule.ID]*outcome.RuleReport{}
	for _, r := range rule.All {
		byRule[r.ID] = &outcome.RuleReport{Rule: r}
	}
	ruleOf := func(id rule.ID) *outcome.RuleReport {
		if r, ok := byRule[id]; ok {
			return r
		}
		r := rule.Rule{ID: id, Title: "(not a rule of the specification)"}
		rules = append(rules, r)
		byRule[id] = &outcome.RuleReport{Rule: r}
		return byRule[id]
	}
	sorted := append([]ScenarioResult(nil), results...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, res := range sorted {
		sc := scenarioReport(res)
		if sc.Outcome == outcome.Failed {
			s.Passed = false
		}
		s.Totals[sc.Outcome]++
		for id, o := range ruleOutcomes(res, sc.Outcome) {
			add(ruleOf(id), o, res.Name)
		}
		for _, id := range rule.Tags(res.Tags) {
			r := ruleOf(id)
			sc.Rules = append(sc.Rules, r.ID)
			r.Scenarios++
		}
		s.Scenarios = append(s.Scenarios, sc)
	}
	for _, r := range rules {
		o := byRule[r.ID]
		decide(o)
		s.Rules = append(s.Rules, *o)
	}
	s.Coverage = outcome.CoverageOf(s, nil)
	return s
}

// decide sets the rule's outcome from its scenarios: the worst outcome any
// of them came to for it, untested when none did.
func decide(o *outcome.RuleReport) {
	o.Outcome = outcome.Untested
	for _, candidate := range outcome.All {
		if len(with(o, candidate)) > 0 {
			o.Outcome = candidate
			return
		}
	}
}

// list is where the rule keeps the scenarios of an outcome.
func list(o *outcome.RuleReport, oc outcome.Outcome) *[]string {
	switch oc {
	case outcome.Failed:
		return &o.Failed
	case outcome.Differs:
		return &o.Declared
	case outcome.Passed:
		return &o.Passed
	case outcome.NotClaimed:
		return &o.Unclaimed
	case outcome.NotApplicable:
		return &o.Inapplicable
	case outcome.Unsupported:
		return &o.NotRunOn
	}
	return nil
}

// add records that a scenario came to an outcome for the rule.
func add(o *outcome.RuleReport, oc outcome.Outcome, scenario string) {
	if l := list(o, oc); l != nil {
		*l = append(*l, scenario)
	}
}

// with lists the rule's scenarios of an outcome.
func with(o *outcome.RuleReport, oc outcome.Outcome) []string {
	if l := list(o, oc); l != nil {
		return *l
	}
	return nil
}

// scenarioReport is a result as the summary shows it.
func scenarioReport(res ScenarioResult) outcome.ScenarioReport {
	sc := outcome.ScenarioReport{Name: res.Name, Tags: res.Tags, Seconds: res.Duration.Seconds(), Failure: res.Failure, Reason: res.Unsupported, Checks: res.Checks, Findings: res.Findings}
	sc.Feature, sc.Scenario, _ = strings.Cut(res.Name, ": ")
	differs := slices.IndexFunc(res.Checks, func(c outcome.CheckReport) bool { return c.Outcome == outcome.Differs })
	sc.Outcome = outcome.Of(outcome.Facts{Failed: res.Failed, NotApplicable: res.NotApplicable, NotClaimed: res.NotClaimed,
		Unsupported: res.Unsupported, Differs: differs >= 0})
	switch sc.Outcome {
	case outcome.Failed:
		if i := slices.IndexFunc(res.Checks, func(c outcome.CheckReport) bool { return c.Outcome == outcome.Failed }); i >= 0 {
			sc.FailedCheck = fmt.Sprintf("%s → %s", res.Checks[i].Step, rule.Join(res.Checks[i].Rules, ", "))
		}
	case outcome.NotApplicable:
		sc.Reason = res.NotApplicable
	case outcome.NotClaimed:
		sc.Reason = "needs @" + res.NotClaimed + ", which the profile does not claim"
	case outcome.Differs:
		sc.Reason = res.Checks[differs].Detail
	}
	return sc
}

// ruleOutcomes is what one scenario says about each rule: from its checks
// when it ran, the worst per rule; from its rule tags when it did not run
// or recorded no checks.
func ruleOutcomes(res ScenarioResult, scenario outcome.Outcome) map[rule.ID]outcome.Outcome {
	out := map[rule.ID]outcome.Outcome{}
	set := func(id rule.ID, o outcome.Outcome) {
		if cur, ok := out[id]; !ok || o.Worse(cur) {
			out[id] = o
		}
	}
	if scenario.Ran() && len(res.Checks) > 0 {
		blamed := false
		for _, c := range res.Checks {
			for _, r := range c.Rules {
				set(r, c.Outcome)
			}
			blamed = blamed || c.Outcome == outcome.Failed
		}
		if scenario == outcome.Failed && !blamed {
			// Failed outside any check (a hook): the scenario's rules.
			for _, id := range rule.Tags(res.Tags) {
				set(id, outcome.Failed)
			}
		}
		return out
	}
	for _, id := range rule.Tags(res.Tags) {
		set(id, scenario)
	}
	return out
}

// Files are the report files of a run, by name: summary.json and
// summary.yaml (the versioned outcome.Report), junit.xml and report.html.
func Files(s *outcome.Report) map[string]func(io.Writer) error {
	return map[string]func(io.Writer) error{
		"summary.json": s.WriteJSON,
		"summary.yaml": s.WriteYAML,
		"junit.xml":    func(w io.Writer) error { return WriteJUnit(w, s) },
		"report.html":  func(w io.Writer) error { return WriteHTML(w, s) },
	}
}

// Write writes every report file of a run into dir.
func Write(dir string, s *outcome.Report) error { return WriteFiles(dir, Files(s)) }

// WriteFiles renders each file into dir under its name, as it renders
// (a long run's reports are tens of MB).
func WriteFiles(dir string, files map[string]func(io.Writer) error) error {
	for name, write := range files {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("unable to write the report: %w", err)
		}
		b := bufio.NewWriter(f)
		err = write(b)
		if ferr := b.Flush(); err == nil && ferr != nil {
			err = fmt.Errorf("unable to write the report: %w", ferr)
		}
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("unable to write the report: %w", cerr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
