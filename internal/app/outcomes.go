package app

import (
	"fmt"
	"io"
	"sort"
	"time"

	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// level is how much of a run's outcomes the summary prints.
type level int

const (
	quietLevel   level = iota // the counts alone
	defaultLevel              // what did not pass, and why each did not run, once
	verboseLevel              // every scenario
)

// verbosity is the level --verbose and --quiet ask for; --verbose wins.
func verbosity(verbose, quiet bool) level {
	switch {
	case verbose:
		return verboseLevel
	case quiet:
		return quietLevel
	}
	return defaultLevel
}

// printOutcomes prints the scenarios of a run as the level asks and
// returns the counts of their outcomes. By default a failed scenario gets
// its failing check, the rules and the message, one that differs as
// declared its declaration; the scenarios that did not run are counted by
// reason, each reason said once; the passed ones are only counted.
func printOutcomes(w io.Writer, scenarios []outcome.Scenario, backend string, l level) outcome.Counts {
	counts := outcome.Counts{}
	notRun := map[string]int{} // reason → scenarios
	var reasons []string
	for _, t := range scenarios {
		o := t.Outcome()
		counts[o]++
		if l == quietLevel {
			continue
		}
		if l == defaultLevel && o != outcome.Failed && o != outcome.Differs {
			if reason := notRunReason(t, backend); reason != "" {
				if notRun[reason] == 0 {
					reasons = append(reasons, reason)
				}
				notRun[reason]++
			}
			continue
		}
		printScenario(w, t, backend)
	}
	sort.SliceStable(reasons, func(i, j int) bool { return notRun[reasons[i]] > notRun[reasons[j]] })
	for _, r := range reasons {
		noun := "scenarios"
		if notRun[r] == 1 {
			noun = "scenario"
		}
		fmt.Fprintf(w, "  %d %s %s\n", notRun[r], noun, r)
	}
	if l == defaultLevel && len(reasons) > 0 {
		fmt.Fprintln(w, "  (--verbose lists every scenario)")
	}
	return counts
}

// notRunReason says why a scenario that did not pass or fail was not
// judged, "" for one that passed.
func notRunReason(t outcome.Scenario, backend string) string {
	switch t.Outcome() {
	case outcome.Unsupported:
		return fmt.Sprintf("not run on the %s backend: %s", backend, t.Unsupported)
	case outcome.NotApplicable:
		return "not applicable: " + t.NotApplicable
	case outcome.NotClaimed:
		return fmt.Sprintf("not claimed: they need @%s, which the profile does not claim", t.NotClaimed)
	}
	return ""
}

// printScenario prints one scenario: its outcome, time and name, then why.
func printScenario(w io.Writer, t outcome.Scenario, backend string) {
	mark := map[outcome.Outcome]string{outcome.Passed: "ok  ", outcome.Failed: "FAIL", outcome.Unsupported: "n/a ",
		outcome.NotClaimed: "n/c ", outcome.NotApplicable: "n/a ", outcome.Differs: "diff"}[t.Outcome()]
	fmt.Fprintf(w, "  %s %8s  %s\n", mark, t.Duration.Round(time.Millisecond), t.Scenario)
	if t.Unsupported != "" {
		fmt.Fprintf(w, "                 not run on the %s backend: %s\n", backend, t.Unsupported)
	}
	if t.NotApplicable != "" {
		fmt.Fprintf(w, "                 not applicable: %s\n", t.NotApplicable)
	}
	if c := t.FailedCheck(); c != nil {
		fmt.Fprintf(w, "                 failed check (%s): %s → %s\n", where(t, c), c.Step, rule.Join(c.Rules, ", "))
		if c.Err != nil {
			fmt.Fprintln(w, indent(c.Err.Error(), "                   "))
		}
	} else if t.Failed && t.Err != nil {
		fmt.Fprintln(w, indent(t.Err.Error(), "                   "))
	}
	if c := t.Declared(); c != nil {
		fmt.Fprintf(w, "                 differs as declared (%s): %s → %s: %s\n", where(t, c), c.Step, rule.Join(c.Rules, ", "), c.Reason)
	}
	for _, c := range t.Checks {
		if c.Outcome == outcome.NotClaimed {
			fmt.Fprintf(w, "                 not claimed (%s): %s: %s\n", where(t, &c), c.Step, c.Reason)
		}
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "                 note: %s\n", n)
	}
	for _, f := range t.Findings {
		fmt.Fprintf(w, "                 finding: %s\n", f)
	}
}

// printFindings prints the line about the run's findings (what the
// implementation did with requests its registration does not send it) and,
// unless quiet, each kind of them once with how many scenarios showed it.
func printFindings(w io.Writer, scenarios []outcome.Scenario, l level) {
	var all []outcome.Finding
	seen := map[outcome.Finding]int{}
	var kinds []outcome.Finding
	for _, t := range scenarios {
		for _, f := range t.Findings {
			all = append(all, f)
			if seen[f] == 0 {
				kinds = append(kinds, f)
			}
			seen[f]++
		}
	}
	if len(all) == 0 {
		return
	}
	fmt.Fprintf(w, "findings:            %s\n", outcome.FindingsLine(all))
	if l == quietLevel {
		return
	}
	for i, f := range kinds {
		if i == 5 && l != verboseLevel {
			fmt.Fprintf(w, "  … and %d more kinds (--verbose lists them)\n", len(kinds)-i)
			break
		}
		fmt.Fprintf(w, "  %d× %s\n", seen[f], f)
	}
}
