package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

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
	Checks []Check
}

// Check is one step's outcome, credited to rules.
type Check struct {
	Step    string          `json:"step"`
	Line    int             `json:"line,omitempty"`
	Rules   []rule.ID       `json:"rules,omitempty"`
	Outcome outcome.Outcome `json:"outcome"`
	// Detail is the failure or the reason of a check that differs as
	// declared or is not claimed.
	Detail string `json:"detail,omitempty"`
	// SettleSeconds is how long a check that something does not happen
	// watched, in seconds; absent for other checks.
	SettleSeconds float64 `json:"settleSeconds,omitempty"`
}

// Summary is the conformance summary of one run.
type Summary struct {
	// Implementation is the module under test: a module name or a webhook URL.
	Implementation string `json:"implementation"`
	// Version describes the harness and the Kubernetes it ran against.
	Version string `json:"version"`
	Backend string `json:"backend"`
	// Passed is true when no scenario failed.
	Passed    bool             `json:"passed"`
	Totals    outcome.Counts   `json:"totals"`
	Rules     []RuleOutcome    `json:"rules"`
	Scenarios []ScenarioReport `json:"scenarios"`
	// Timing is how long the run's phases took; absent where the summary
	// is made before the run stops (the verdict ConfigMap of
	// --summary-configmap, and so merged shards).
	Timing *Timing `json:"timing,omitempty"`
}

// Timing is how long a run's phases took, in seconds, and whether its
// clean-up did all it should.
type Timing struct {
	StartSeconds float64 `json:"startSeconds"`
	SuiteSeconds float64 `json:"suiteSeconds"`
	// CleanUpSeconds is the clean-up and stop: on an existing cluster,
	// deleting what the run created and watching it go; elsewhere,
	// stopping what the run started.
	CleanUpSeconds float64 `json:"cleanUpSeconds"`
	// CleanUpError is what the clean-up could not do (on an existing
	// cluster: what it could not delete, by name); empty when it did all.
	CleanUpError string `json:"cleanUpError,omitempty"`
}

// NewTiming is the Timing of a run's start, suite and clean-up, and of the
// clean-up's error, if any.
func NewTiming(start, suite, cleanUp time.Duration, cleanUpErr error) *Timing {
	t := &Timing{StartSeconds: round(start), SuiteSeconds: round(suite), CleanUpSeconds: round(cleanUp)}
	if cleanUpErr != nil {
		t.CleanUpError = cleanUpErr.Error()
	}
	return t
}

// round is a duration in seconds, to the millisecond.
func round(d time.Duration) float64 { return d.Round(time.Millisecond).Seconds() }

// RuleOutcome is a rule with its outcome and the scenarios that decided it.
type RuleOutcome struct {
	rule.Rule
	Outcome   outcome.Outcome `json:"outcome"`
	Failed    []string        `json:"failed,omitempty"`
	Passed    []string        `json:"passed,omitempty"`
	NotRunOn  []string        `json:"unsupported,omitempty"`
	Unclaimed []string        `json:"notClaimed,omitempty"`
	Declared  []string        `json:"differs,omitempty"`
	// Inapplicable are the scenarios that do not apply to the implementation.
	Inapplicable []string `json:"notApplicable,omitempty"`
	Scenarios    int      `json:"scenarios"`
}

// ScenarioReport is a scenario in the summary.
type ScenarioReport struct {
	Name     string          `json:"name"`
	Feature  string          `json:"feature"`
	Tags     []string        `json:"tags,omitempty"`
	Outcome  outcome.Outcome `json:"outcome"`
	Seconds  float64         `json:"seconds"`
	Failure  string          `json:"failure,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Rules    []rule.ID       `json:"rules,omitempty"`
	Scenario string          `json:"scenario"`
	// FailedCheck is the failing step and the rules it is credited to:
	// `the pod "website" should be as submitted → R4.2`.
	FailedCheck string  `json:"failedCheck,omitempty"`
	Checks      []Check `json:"checks,omitempty"`
}

// Build makes the summary of a run. A rule's outcome comes from the checks
// credited to it: failed when a check credited to it failed, differs when
// one differed as the profile declares, passed when one passed, and
// otherwise from the scenarios tagged with it that did not run. A rule id
// the specification does not define is not dropped: it is listed after the
// specification's rules, titled as such.
func Build(implementation, version, backend string, results []ScenarioResult) *Summary {
	s := &Summary{Implementation: implementation, Version: version, Backend: backend, Passed: true,
		Totals: outcome.Counts{outcome.Passed: 0, outcome.Failed: 0, outcome.Differs: 0, outcome.Unsupported: 0,
			outcome.NotClaimed: 0, outcome.NotApplicable: 0}}
	rules := slices.Clone(rule.All)
	byRule := map[rule.ID]*RuleOutcome{}
	for _, r := range rule.All {
		byRule[r.ID] = &RuleOutcome{Rule: r}
	}
	ruleOf := func(id rule.ID) *RuleOutcome {
		if r, ok := byRule[id]; ok {
			return r
		}
		r := rule.Rule{ID: id, Title: "(not a rule of the specification)"}
		rules = append(rules, r)
		byRule[id] = &RuleOutcome{Rule: r}
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
			ruleOf(id).add(o, res.Name)
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
		o.decide()
		s.Rules = append(s.Rules, *o)
	}
	return s
}

// decide sets the rule's outcome from its scenarios: the worst outcome any
// of them came to for it, untested when none did.
func (o *RuleOutcome) decide() {
	o.Outcome = outcome.Untested
	for _, candidate := range outcome.All {
		if len(o.with(candidate)) > 0 {
			o.Outcome = candidate
			return
		}
	}
}

// list is where the rule keeps the scenarios of an outcome.
func (o *RuleOutcome) list(oc outcome.Outcome) *[]string {
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
func (o *RuleOutcome) add(oc outcome.Outcome, scenario string) {
	if l := o.list(oc); l != nil {
		*l = append(*l, scenario)
	}
}

// with lists the rule's scenarios of an outcome.
func (o *RuleOutcome) with(oc outcome.Outcome) []string {
	if l := o.list(oc); l != nil {
		return *l
	}
	return nil
}

// scenarioReport is a result as the summary shows it.
func scenarioReport(res ScenarioResult) ScenarioReport {
	sc := ScenarioReport{Name: res.Name, Tags: res.Tags, Seconds: res.Duration.Seconds(), Failure: res.Failure, Reason: res.Unsupported, Checks: res.Checks}
	sc.Feature, sc.Scenario, _ = strings.Cut(res.Name, ": ")
	differs := slices.IndexFunc(res.Checks, func(c Check) bool { return c.Outcome == outcome.Differs })
	sc.Outcome = outcome.Of(outcome.Facts{Failed: res.Failed, NotApplicable: res.NotApplicable, NotClaimed: res.NotClaimed,
		Unsupported: res.Unsupported, Differs: differs >= 0})
	switch sc.Outcome {
	case outcome.Failed:
		if i := slices.IndexFunc(res.Checks, func(c Check) bool { return c.Outcome == outcome.Failed }); i >= 0 {
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

// failedRules are the rules a failed scenario's failing check is credited
// to; its rule tags when no check failed.
func (sc ScenarioReport) failedRules() []rule.ID {
	for _, c := range sc.Checks {
		if c.Outcome == outcome.Failed {
			return c.Rules
		}
	}
	return sc.Rules
}

// FailedRules lists the ids of the rules that failed.
func (s *Summary) FailedRules() []rule.ID {
	var out []rule.ID
	for _, r := range s.Rules {
		if r.Outcome == outcome.Failed {
			out = append(out, r.ID)
		}
	}
	return out
}

// WriteJSON writes the summary as indented JSON.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteYAML writes the summary as YAML.
func (s *Summary) WriteYAML(w io.Writer) error {
	b, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Errorf("unable to render the summary as YAML: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// Files are the report files WriteFiles writes, by name.
func (s *Summary) Files() map[string]func(io.Writer) error {
	return map[string]func(io.Writer) error{
		"summary.json": s.WriteJSON,
		"summary.yaml": s.WriteYAML,
		"junit.xml":    s.WriteJUnit,
		"report.html":  s.WriteHTML,
	}
}

// WriteFiles writes every report file into dir.
func (s *Summary) WriteFiles(dir string) error { return WriteFiles(dir, s.Files()) }

// WriteFiles renders each file and writes it into dir under its name.
func WriteFiles(dir string, files map[string]func(io.Writer) error) error {
	for name, write := range files {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("unable to write the report: %w", err)
		}
	}
	return nil
}
