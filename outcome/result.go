package outcome

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/rule"
)

// Check is what one step established, or failed to: the step, the rules it
// was credited to, and how it went. Setup steps (Given/When) appear only
// when they fail, since they check nothing when they succeed.
type Check struct {
	// Step is the step's text, e.g. `the pod "website" should be as submitted`.
	Step string
	// Line is the step's line in its feature file; 0 for the check the
	// model makes after the last step.
	Line int
	// Rules are the rule ids (R4.2, without "@") the outcome is credited to.
	Rules []rule.ID
	// Outcome is Passed, Failed, NotClaimed or Differs.
	Outcome Outcome
	// Err is the failure, for Failed and Differs.
	Err error
	// Reason says why a check was not claimed or differs as declared.
	Reason string
	// Window is how long a check that something does not happen watched
	// (the run's settle window, or the step's own); zero for other checks.
	Window time.Duration
}

// Where is "line 12", or "after the last step" for the model's check.
func (c Check) Where() string {
	if c.Line == 0 {
		return "after the last step"
	}
	return fmt.Sprintf("line %d", c.Line)
}

// Scenario is how one scenario went and how long it took.
type Scenario struct {
	// Scenario is "<feature file>: <scenario name>".
	Scenario string
	// Tags are the scenario's tags with its feature's, e.g. "@R2.4".
	Tags     []string
	Duration time.Duration
	// Failed is set when a step failed; Err is the first failure.
	Failed bool
	Err    error
	// Unsupported says why a step could not run on the backend; the
	// scenario then neither passed nor failed.
	Unsupported string
	// NotClaimed is the capability (a tag) the scenario needs and the
	// profile does not claim; the scenario was not run.
	NotClaimed string
	// NotApplicable says why the scenario does not apply to the
	// implementation under test; it was not run.
	NotApplicable string
	// Checks are what its steps established or failed to, each credited to
	// rules; a failed scenario's failing check is among them.
	Checks []Check
	// Notes are what the scenario's steps want the reader to know though
	// no step failed (scenario.Scenario.Notes).
	Notes []string
	// Findings are what the implementation did with the requests of the
	// scenario its registration does not send it; they fail nothing.
	Findings []Finding
	// Pods are the pods the scenario left behind, with logical namespace
	// names (only with steps.SuiteOptions.KeepPods).
	Pods []corev1.Pod
	// Phases are where Duration went, in order: each step that ran, the
	// model's check after the last step, the clean-up and the deletion of
	// the scenario's namespaces (presetsim bench prints them).
	Phases []Phase
}

// Phase is one part of a scenario's time: a step (named by its text) or
// what the runner does after the steps (PhaseModel, PhaseCleanUp,
// PhaseNamespaces).
type Phase struct {
	Name     string
	Duration time.Duration
}

// The phases of a scenario after its steps.
const (
	PhaseModel      = "(the model's check after the last step)"
	PhaseCleanUp    = "(clean-up)"
	PhaseNamespaces = "(the namespaces deleted)"
)

// Outcome is what the scenario came to: failed, not applicable, not
// claimed, unsupported, differs (as declared) or passed, the first that
// holds.
func (t Scenario) Outcome() Outcome {
	return Of(Facts{Failed: t.Failed, NotApplicable: t.NotApplicable, NotClaimed: t.NotClaimed,
		Unsupported: t.Unsupported, Differs: t.Declared() != nil})
}

// Declared returns the check that differed as the profile declares, or nil.
func (t Scenario) Declared() *Check { return t.firstCheck(Differs) }

// FailedCheck returns the check that failed the scenario, or nil.
func (t Scenario) FailedCheck() *Check { return t.firstCheck(Failed) }

// firstCheck returns the first check with the outcome, or nil.
func (t Scenario) firstCheck(o Outcome) *Check {
	for i := range t.Checks {
		if t.Checks[i].Outcome == o {
			return &t.Checks[i]
		}
	}
	return nil
}

// FailedRules are the rules the scenario's failure is credited to: the
// failing check's.
func (t Scenario) FailedRules() []rule.ID {
	if c := t.FailedCheck(); c != nil {
		return c.Rules
	}
	if t.Failed {
		return rule.Tags(t.Tags) // failed outside a step (a hook)
	}
	return nil
}
