package bench

import (
	"fmt"
	"io"
	"time"

	"presetsim.dev/presetsim/outcome"
)

// phaseOther names a scenario's time outside its phases: the runner's hooks
// before the first step and godog's own work between steps.
const phaseOther = "(outside these: hooks before the first step, godog)"

// phaseRow is a phase's median over a series of scenarios.
type phaseRow struct {
	name   string
	median time.Duration
}

// phases are the medians of each phase over scenarios that ran the same
// steps, in the order of their first appearance, then phaseOther: a
// scenario's time less its phases'. A phase a scenario did not reach counts
// as zero for it, so that the rows add up to about the median scenario.
func phases(ts []outcome.Scenario) []phaseRow {
	var names []string
	byName := map[string][]time.Duration{}
	var other []time.Duration
	for _, t := range ts {
		rest := t.Duration
		seen := map[string]time.Duration{}
		for _, p := range t.Phases {
			if _, ok := byName[p.Name]; !ok {
				names = append(names, p.Name)
				byName[p.Name] = nil
			}
			seen[p.Name] += p.Duration
			rest -= p.Duration
		}
		for _, n := range names {
			byName[n] = append(byName[n], seen[n])
		}
		other = append(other, max(rest, 0))
	}
	if len(names) == 0 {
		return nil
	}
	rows := make([]phaseRow, 0, len(names)+1)
	for _, n := range names {
		d := byName[n]
		// The scenarios before the phase first appeared did not reach it.
		d = append(d, make([]time.Duration, len(ts)-len(d))...)
		rows = append(rows, phaseRow{n, percentile(d, 50)})
	}
	return append(rows, phaseRow{phaseOther, percentile(other, 50)})
}

// printPhases prints phases' rows under a series' line of the table.
func printPhases(out io.Writer, ts []outcome.Scenario) {
	for _, r := range phases(ts) {
		name := []rune(r.name)
		if len(name) > 48 {
			name = append(name[:47], '…')
		}
		fmt.Fprintf(out, "      %-48s %10s\n", string(name), display(r.median))
	}
}
