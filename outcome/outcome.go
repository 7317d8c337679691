package outcome

import (
	"fmt"
	"slices"
)

// Outcome is what a check, a scenario or a rule came to.
type Outcome string

// The outcomes, worst first: a rule's outcome is the worst of what its
// scenarios' checks came to.
const (
	// Failed: the implementation did something the model does not allow.
	Failed Outcome = "fail"
	// Differs: it did something the specification does not allow and the
	// model, under the profile's declarations, does.
	Differs Outcome = "differs"
	// Passed: it did what the model says.
	Passed Outcome = "pass"
	// NotClaimed: the scenario or check needs a capability the profile
	// does not claim; it was not run or not judged.
	NotClaimed Outcome = "not-claimed"
	// NotApplicable: the scenario does not apply to the implementation.
	NotApplicable Outcome = "not-applicable"
	// Unsupported: the backend cannot run a step of the scenario.
	Unsupported Outcome = "unsupported"
	// Untested: no scenario of the run is credited to the rule (rules only).
	Untested Outcome = "untested"
)

// All are the outcomes, worst first.
var All = []Outcome{Failed, Differs, Passed, NotClaimed, NotApplicable, Unsupported, Untested}

// words are the outcomes as a person reads them.
var words = map[Outcome]string{
	Failed: "failed", Differs: "differs as declared", Passed: "passed", NotClaimed: "not claimed",
	NotApplicable: "not applicable", Unsupported: "unsupported", Untested: "untested",
}

// Words is the outcome as a person reads it: "passed", "differs as
// declared", "not claimed".
func (o Outcome) Words() string {
	if w, ok := words[o]; ok {
		return w
	}
	return string(o)
}

// Ran reports whether the outcome is a judgement of what an implementation
// did (passed, failed, differs), not a reason it was not judged.
func (o Outcome) Ran() bool { return o == Passed || o == Failed || o == Differs }

// Worse reports whether o is worse than other (Failed is the worst).
func (o Outcome) Worse(other Outcome) bool {
	return slices.Index(All, o) < slices.Index(All, other)
}

// Valid reports whether o is one of All.
func (o Outcome) Valid() bool { return slices.Contains(All, o) }

// UnmarshalText refuses a name that is no outcome, so that a report read
// back (report merge, compare) never carries one it cannot count.
func (o *Outcome) UnmarshalText(text []byte) error {
	v := Outcome(text)
	if !v.Valid() {
		return &InvalidError{Text: string(text)}
	}
	*o = v
	return nil
}

// InvalidError is UnmarshalText's error: Text is no outcome. A reader
// that knows where Text stood says so (file and line).
type InvalidError struct{ Text string }

func (e *InvalidError) Error() string {
	return fmt.Sprintf("%q is no outcome (want one of %v)", e.Text, All)
}

// Facts are what decide a scenario's outcome: whether a step failed,
// why it did not run, and whether a check differed as the profile
// declares.
type Facts struct {
	Failed bool
	// NotApplicable, NotClaimed and Unsupported say why the scenario did
	// not run ("" when they do not hold).
	NotApplicable, NotClaimed, Unsupported string
	// Differs: a check differed as the profile declares.
	Differs bool
}

// Of is what a scenario came to: failed, not applicable, not claimed,
// unsupported, differs (as declared) or passed, the first that holds. It
// is the one place that decides; the run's results and every report ask it.
func Of(s Facts) Outcome {
	switch {
	case s.Failed:
		return Failed
	case s.NotApplicable != "":
		return NotApplicable
	case s.NotClaimed != "":
		return NotClaimed
	case s.Unsupported != "":
		return Unsupported
	case s.Differs:
		return Differs
	}
	return Passed
}
