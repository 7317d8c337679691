package steps

import (
	"errors"
	"slices"

	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/internal/scenario"
)

// checkSpec is what a step checks: the rules of the specification its
// check can establish and the capability it needs. A setup step checks nothing but
// can still fail: it is blamed on its rules (when the scenario's tags hold
// them) or on the scenario's rules, and never credited.
type checkSpec struct {
	rules []rule.ID
	// setup marks a step that prepares rather than checks.
	setup bool
	// needs is the profile capability the check needs ("events"); a profile
	// that does not claim it has the check skipped as not claimed.
	needs profile.Capability
	// shows is the kind of check (shows.content, …): a profile's declared
	// difference can excuse only the checks that show it.
	shows string
	// narrow, when set, narrows a failure to the rules it points at (a pod
	// comparison's differences, say); prefix is the implementation's
	// annotation domain.
	narrow func(err error, prefix string) []rule.ID
	// fragment marks a setup step whose DocString holds part of an object
	// (a container), not objects to create: it is decoded by the step.
	fragment bool
	// tries marks a setup step whose request may be refused ("I try to
	// create:"): its objects need not be valid.
	tries bool
}

// shows names the kinds of checks, as profile.Difference.Checks lists them.
var shows = struct{ admitted, rejected, content, events, warnings string }{
	admitted: "admitted", rejected: "rejected", content: "content", events: "events", warnings: "warnings",
}

// setup is a step that prepares the scenario; on failure it is blamed on
// rules (within the scenario's tags).
func setup(kind string, rules ...rule.ID) checkSpec {
	return checkSpec{rules: rules, setup: true, shows: kind, narrow: denied}
}

// attempt is a setup step whose request may be refused, recorded for a
// later check: its objects are not checked before the run.
func attempt() checkSpec {
	c := setup("")
	c.tries = true
	return c
}

// denied narrows a refused request: a pod the implementation denied at
// admission breaks R4.2's "admission still succeeds" (the only rule under
// which the specification's implementation refuses nothing).
func denied(err error, _ string) []rule.ID {
	if admit.Denied(err) {
		return []rule.ID{rule.R4_2}
	}
	return nil
}

// check is a step that checks rules, in a way of the kind shows.
func check(kind string, rules ...rule.ID) checkSpec { return checkSpec{rules: rules, shows: kind} }

// podCheck compares a pod with an expectation; a failure is narrowed by its
// differences, or by a workload the implementation changed.
func podCheck(rules ...rule.ID) checkSpec {
	return checkSpec{rules: slices.Concat(rule.PodContent, rules), shows: shows.content, narrow: func(err error, prefix string) []rule.ID {
		if r := denied(err, prefix); r != nil {
			return r // a workload's pods refused at admission
		}
		if r := workloadChanged(err); r != nil {
			return r
		}
		return oracle.DifferenceRules(err, prefix)
	}}
}

// workloadChanged narrows an error that holds a workload the
// implementation changed at admission (*scenario.ObjectChanged: the
// scenario's own, or a ReplicaSet its Deployment made): R2.6.
func workloadChanged(err error) []rule.ID {
	var changed *scenario.ObjectChanged
	if errors.As(err, &changed) {
		return []rule.ID{rule.R2_6}
	}
	return nil
}

// updateCheck is "the pod … should be as updated": an update refused or
// changed breaks R2.1 (a pod's UPDATE) or R3.2 (an ephemeral container).
func updateCheck() checkSpec {
	return checkSpec{rules: []rule.ID{rule.R2_1, rule.R3_2}, shows: shows.content, narrow: func(err error, _ string) []rule.ID {
		var changed *scenario.UpdateChanged
		if errors.As(err, &changed) {
			return changed.Rules()
		}
		return nil
	}}
}

// asSubmittedCheck is "the <Kind> … should be as submitted": for a pod, a
// pod comparison; for a workload, its template changed breaks R2.6.
func asSubmittedCheck() checkSpec { return podCheck(rule.R2_6) }

// workloadUpdate is a step that updates a workload (scale it, roll it
// out): a workload the implementation changed at admission breaks R2.6,
// named by the step itself, before what the change leads to later.
func workloadUpdate() checkSpec {
	c := setup("")
	c.narrow = func(err error, prefix string) []rule.ID {
		if r := workloadChanged(err); r != nil {
			return r
		}
		return denied(err, prefix)
	}
	return c
}

// needs makes a check depend on a capability.
func needs(capability profile.Capability, c checkSpec) checkSpec {
	c.needs = capability
	return c
}

// rejectionCheck is "the request should be rejected with a message
// containing": a request that succeeded breaks the validation rule the
// scenario is about; a rejection with another message breaks R1.8.
func rejectionCheck() checkSpec {
	return checkSpec{rules: rule.Validation, shows: shows.rejected, narrow: func(err error, _ string) []rule.ID {
		if errors.Is(err, scenario.ErrAccepted) {
			return slices.DeleteFunc(slices.Clone(rule.Validation), func(r rule.ID) bool { return r == rule.R1_8 })
		}
		return []rule.ID{rule.R1_8}
	}}
}
