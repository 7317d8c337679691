package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Outcomes of scenarios and rules.
const (
	Pass        = "pass"
	Fail        = "fail"
	Unsupported = "unsupported"
	NotClaimed  = "not-claimed"
	Untested    = "untested"
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
	Totals    map[string]int   `json:"totals"`
	Rules     []RuleOutcome    `json:"rules"`
	Scenarios []ScenarioReport `json:"scenarios"`
}

// RuleOutcome is a rule with its outcome and the scenarios that decided it.
type RuleOutcome struct {
	Rule
	Outcome   string   `json:"outcome"`
	Failed    []string `json:"failed,omitempty"`
	Passed    []string `json:"passed,omitempty"`
	NotRunOn  []string `json:"unsupported,omitempty"`
	Unclaimed []string `json:"notClaimed,omitempty"`
	Scenarios int      `json:"scenarios"`
}

// ScenarioReport is a scenario in the summary.
type ScenarioReport struct {
	Name     string   `json:"name"`
	Feature  string   `json:"feature"`
	Tags     []string `json:"tags,omitempty"`
	Outcome  string   `json:"outcome"`
	Seconds  float64  `json:"seconds"`
	Failure  string   `json:"failure,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Rules    []string `json:"rules,omitempty"`
	Scenario string   `json:"scenario"`
}

// Build makes the summary of a run.
func Build(implementation, version, backend string, results []ScenarioResult) *Summary {
	s := &Summary{Implementation: implementation, Version: version, Backend: backend, Passed: true,
		Totals: map[string]int{Pass: 0, Fail: 0, Unsupported: 0, NotClaimed: 0}}
	byRule := map[string]*RuleOutcome{}
	for _, r := range Rules {
		byRule[r.ID] = &RuleOutcome{Rule: r}
	}
	sorted := append([]ScenarioResult(nil), results...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, res := range sorted {
		sc := ScenarioReport{Name: res.Name, Tags: res.Tags, Seconds: res.Duration.Seconds(), Failure: res.Failure, Reason: res.Unsupported}
		sc.Feature, sc.Scenario, _ = strings.Cut(res.Name, ": ")
		switch {
		case res.Failed:
			sc.Outcome = Fail
			s.Passed = false
		case res.NotClaimed != "":
			sc.Outcome = NotClaimed
			sc.Reason = "needs @" + res.NotClaimed + ", which the profile does not claim"
		case res.Unsupported != "":
			sc.Outcome = Unsupported
		default:
			sc.Outcome = Pass
		}
		s.Totals[sc.Outcome]++
		for _, tag := range res.Tags {
			id, ok := strings.CutPrefix(tag, "@")
			r, known := byRule[id]
			if !ok || !known {
				continue
			}
			sc.Rules = append(sc.Rules, id)
			r.Scenarios++
			switch sc.Outcome {
			case Fail:
				r.Failed = append(r.Failed, res.Name)
			case Pass:
				r.Passed = append(r.Passed, res.Name)
			case NotClaimed:
				r.Unclaimed = append(r.Unclaimed, res.Name)
			default:
				r.NotRunOn = append(r.NotRunOn, res.Name)
			}
		}
		s.Scenarios = append(s.Scenarios, sc)
	}
	for _, r := range Rules {
		o := byRule[r.ID]
		switch {
		case len(o.Failed) > 0:
			o.Outcome = Fail
		case len(o.Passed) > 0:
			o.Outcome = Pass
		case len(o.Unclaimed) > 0:
			o.Outcome = NotClaimed
		case len(o.NotRunOn) > 0:
			o.Outcome = Unsupported
		default:
			o.Outcome = Untested
		}
		s.Rules = append(s.Rules, *o)
	}
	return s
}

// FailedRules lists the ids of the rules that failed.
func (s *Summary) FailedRules() []string {
	var out []string
	for _, r := range s.Rules {
		if r.Outcome == Fail {
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
func (s *Summary) WriteFiles(dir string) error {
	for name, write := range s.Files() {
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
