package outcome

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/rule"
)

// The version of Report a run writes. A change that a reader of an older
// report could misread takes a new version.
const (
	ReportAPIVersion = "presetsim.dev/v1alpha1"
	ReportKind       = "ConformanceReport"
)

// CheckReport is one step's check as a Report shows it, credited to
// rules.
type CheckReport struct {
	Step    string    `json:"step"`
	Line    int       `json:"line,omitempty"`
	Rules   []rule.ID `json:"rules,omitempty"`
	Outcome Outcome   `json:"outcome"`
	// Detail is the failure or the reason of a check that differs as
	// declared or is not claimed.
	Detail string `json:"detail,omitempty"`
	// SettleSeconds is how long a check that something does not happen
	// watched, in seconds; absent for other checks.
	SettleSeconds float64 `json:"settleSeconds,omitempty"`
}

// Report is the conformance report of one run: what summary.json and
// summary.yaml hold, versioned by APIVersion and Kind as a Kubernetes
// object is, so that a reader can tell the shape it reads.
type Report struct {
	// APIVersion is ReportAPIVersion; Kind is ReportKind.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Implementation is the module under test: a module name or a webhook URL.
	Implementation string `json:"implementation"`
	// Version describes the harness and the Kubernetes it ran against.
	Version string `json:"version"`
	Backend string `json:"backend"`
	// Passed is true when no scenario failed.
	Passed    bool             `json:"passed"`
	Totals    Counts           `json:"totals"`
	Rules     []RuleReport     `json:"rules"`
	Scenarios []ScenarioReport `json:"scenarios"`
	// Timing is how long the run's phases took; absent where the summary
	// is made before the run stops (the verdict ConfigMap of
	// --summary-configmap, and so merged shards).
	Timing *Timing `json:"timing,omitempty"`
	// Coverage is what the run checked, rule by rule, and why the rest
	// went unchecked.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Interrupted says that the run was cut short (by SIGINT, SIGTERM,
	// its --timeout, a closed output): the report holds the scenarios
	// that finished, and no others ran. A run that did not finish has not
	// passed, whatever its scenarios did (SetInterrupted).
	Interrupted string `json:"interrupted,omitempty"`
}

// SetInterrupted marks the report of a run that was cut short: why (what
// finished, what did not run) in Interrupted, and not passed.
func (r *Report) SetInterrupted(why string) {
	r.Interrupted, r.Passed = why, false
}

// Verdict is the run's verdict in words: "PASSED" or "FAILED", and how
// many of its scenarios did not run when some did not ("PASSED (26 of 94
// scenarios not run)"): a verdict stands over the scenarios that ran.
func (r *Report) Verdict() string {
	v := "FAILED"
	switch {
	case r.Interrupted != "":
		v = "NOT FINISHED"
	case r.Passed:
		v = "PASSED"
	}
	if n := r.Totals.NotRun(); n > 0 {
		v += fmt.Sprintf(" (%d of %d scenarios not run)", n, r.Totals.Scenarios())
	}
	return v
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

// RuleReport is a rule with its outcome and the scenarios that decided it.
type RuleReport struct {
	rule.Rule
	Outcome   Outcome  `json:"outcome"`
	Failed    []string `json:"failed,omitempty"`
	Passed    []string `json:"passed,omitempty"`
	NotRunOn  []string `json:"unsupported,omitempty"`
	Unclaimed []string `json:"notClaimed,omitempty"`
	Declared  []string `json:"differs,omitempty"`
	// Inapplicable are the scenarios that do not apply to the implementation.
	Inapplicable []string `json:"notApplicable,omitempty"`
	Scenarios    int      `json:"scenarios"`
}

// ScenarioReport is a scenario in the report.
type ScenarioReport struct {
	Name     string    `json:"name"`
	Feature  string    `json:"feature"`
	Tags     []string  `json:"tags,omitempty"`
	Outcome  Outcome   `json:"outcome"`
	Seconds  float64   `json:"seconds"`
	Failure  string    `json:"failure,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Rules    []rule.ID `json:"rules,omitempty"`
	Scenario string    `json:"scenario"`
	// FailedCheck is the failing step and the rules it is credited to:
	// `the pod "website" should be as submitted → R4.2`.
	FailedCheck string        `json:"failedCheck,omitempty"`
	Checks      []CheckReport `json:"checks,omitempty"`
	// Findings are what the implementation did with the scenario's
	// requests that its registration does not send it (Finding).
	Findings []Finding `json:"findings,omitempty"`
}

// FailedRules are the rules a failed scenario's failing check is credited
// to; its rule tags when no check failed.
func (sc ScenarioReport) FailedRules() []rule.ID {
	for _, c := range sc.Checks {
		if c.Outcome == Failed {
			return c.Rules
		}
	}
	return sc.Rules
}

// FailedRules lists the ids of the rules that failed in the run.
func (s *Report) FailedRules() []rule.ID {
	var out []rule.ID
	for _, r := range s.Rules {
		if r.Outcome == Failed {
			out = append(out, r.ID)
		}
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (s *Report) WriteJSON(w io.Writer) error {
	s.setVersion()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteYAML writes the report as YAML, as sigs.k8s.io/yaml writes it
// (keys in order), a field at a time and a list's item at a time: the
// YAML library holds a whole document's tree, hundreds of MB for a run of
// 20,000 scenarios.
func (s *Report) WriteYAML(w io.Writer) error {
	s.setVersion()
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("unable to render the summary as YAML: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("unable to render the summary as YAML: %w", err)
	}
	part := func(key string, value json.RawMessage) error {
		b, err := yaml.JSONToYAML(append(append([]byte(`{"`+key+`":`), value...), '}'))
		if err != nil {
			return fmt.Errorf("unable to render the summary's %s as YAML: %w", key, err)
		}
		_, err = w.Write(b)
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		var items []json.RawMessage
		if json.Unmarshal(fields[key], &items) != nil || len(items) == 0 {
			if err := part(key, fields[key]); err != nil {
				return err
			}
			continue
		}
		// A list under a key is written unindented: each item's block, its
		// key line left out after the first, is the whole list's text.
		header := key + ":\n"
		if _, err := io.WriteString(w, header); err != nil {
			return err
		}
		for _, item := range items {
			b, err := yaml.JSONToYAML(append(append([]byte(`{"`+key+`":[`), item...), ']', '}'))
			if err != nil {
				return fmt.Errorf("unable to render the summary's %s as YAML: %w", key, err)
			}
			if _, err := w.Write(bytes.TrimPrefix(b, []byte(header))); err != nil {
				return err
			}
		}
	}
	return nil
}

// setVersion stamps the report with the version it is written in.
func (s *Report) setVersion() { s.APIVersion, s.Kind = ReportAPIVersion, ReportKind }

// ReadReport parses a report (summary.json) and refuses unknown fields
// and a report of another version or kind, or of none, so that a report
// of another shape is never read as this one.
func ReadReport(data []byte) (*Report, error) {
	var s Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if err := s.CheckVersion(); err != nil {
		return nil, err
	}
	return &s, nil
}

// CheckVersion is a VersionError unless the report is of the version and
// kind this package reads.
func (s *Report) CheckVersion() error {
	if s.APIVersion != ReportAPIVersion || s.Kind != ReportKind {
		return &VersionError{APIVersion: s.APIVersion, Kind: s.Kind}
	}
	return nil
}

// VersionError is ReadReport's error for a report of another version.
type VersionError struct{ APIVersion, Kind string }

func (e *VersionError) Error() string {
	if e.APIVersion == "" && e.Kind == "" {
		return fmt.Sprintf("no apiVersion and kind: not a report of this presetsim (want %s %s); run it again to write one", ReportAPIVersion, ReportKind)
	}
	return fmt.Sprintf("apiVersion %q, kind %q: not a report this presetsim reads (want %s %s)", e.APIVersion, e.Kind, ReportAPIVersion, ReportKind)
}
