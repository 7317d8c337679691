package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

type junitSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr,omitempty"`
	Skipped  int      `xml:"skipped,attr"`
	// Time is the whole run's, start and clean-up included, when known.
	Time   string       `xml:"time,attr,omitempty"`
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr,omitempty"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

// RunSuite names the JUnit suite of what is said of the run as a whole:
// that it did not finish.
const RunSuite = "(the run)"

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes JUnit XML: a test suite per feature file, a test case
// per scenario. A failure carries its first line as the message and the
// whole text (the pod diff included) as the body; a scenario the backend
// could not run is skipped with the reason. A run that did not finish gets
// a suite of its own (RunSuite) with one test case in error that says so,
// so that CI never reads it as green.
func WriteJUnit(w io.Writer, s *outcome.Report) error {
	root := junitSuites{Name: "presetsim: " + s.Implementation}
	if t := s.Timing; t != nil {
		root.Time = fmt.Sprintf("%.3f", t.StartSeconds+t.SuiteSeconds+t.CleanUpSeconds)
	}
	index := map[string]int{}
	for _, sc := range s.Scenarios {
		i, ok := index[sc.Feature]
		if !ok {
			i = len(root.Suites)
			index[sc.Feature] = i
			root.Suites = append(root.Suites, junitSuite{Name: sc.Feature})
		}
		suite := &root.Suites[i]
		c := junitCase{Name: sc.Scenario, Classname: sc.Feature, Time: fmt.Sprintf("%.3f", sc.Seconds)}
		switch sc.Outcome {
		case outcome.Failed:
			first, _, _ := strings.Cut(sc.Failure, "\n")
			c.Failure = &junitMessage{Message: first, Type: rule.Join(sc.FailedRules(), " "), Text: sc.Failure}
			if sc.FailedCheck != "" {
				c.Failure.Text = "failed check: " + sc.FailedCheck + "\n\n" + sc.Failure
			}
			suite.Failures++
			root.Failures++
		case outcome.Unsupported:
			c.Skipped = &junitMessage{Message: "unsupported on the " + s.Backend + " backend: " + sc.Reason}
			suite.Skipped++
			root.Skipped++
		case outcome.NotClaimed:
			c.Skipped = &junitMessage{Message: "not claimed: " + sc.Reason}
			suite.Skipped++
			root.Skipped++
		case outcome.NotApplicable:
			c.Skipped = &junitMessage{Message: "not applicable: " + sc.Reason}
			suite.Skipped++
			root.Skipped++
		case outcome.Differs:
			c.Skipped = &junitMessage{Message: "differs as declared: " + sc.Reason}
			suite.Skipped++
			root.Skipped++
		}
		suite.Tests++
		root.Tests++
		suite.Cases = append(suite.Cases, c)
	}
	if s.Interrupted != "" {
		root.Suites = append(root.Suites, junitSuite{Name: RunSuite, Tests: 1, Errors: 1, Time: "0.000", Cases: []junitCase{{
			Name: "the run finished", Classname: RunSuite, Time: "0.000",
			Error: &junitMessage{Message: "the run did not finish: " + s.Interrupted, Type: "interrupted"},
		}}})
		root.Tests++
		root.Errors++
	}
	for i := range root.Suites {
		if root.Suites[i].Name == RunSuite {
			continue
		}
		var total float64
		for _, sc := range s.Scenarios {
			if sc.Feature == root.Suites[i].Name {
				total += sc.Seconds
			}
		}
		root.Suites[i].Time = fmt.Sprintf("%.3f", total)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("unable to render JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
