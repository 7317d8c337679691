package report

import (
	"fmt"
	"slices"
	"sort"

	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// Merge joins the summaries of the shards of one run (presetsim run
// --shard I/N) into the summary of the whole run: the scenarios of every
// shard, the totals added, and each rule's outcome decided again from the
// scenarios of all shards, as Build decides it. The shards must be of one
// implementation, version and backend, and no scenario may be in two.
func Merge(shards []*outcome.Report) (*outcome.Report, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("no summaries to merge")
	}
	first := shards[0]
	s := &outcome.Report{APIVersion: outcome.ReportAPIVersion, Kind: outcome.ReportKind, Implementation: first.Implementation, Version: first.Version, Backend: first.Backend, Passed: true, Totals: outcome.Counts{}}
	byRule := map[rule.ID]*outcome.RuleReport{}
	var order []rule.ID
	owner := map[string]int{} // scenario → the shard it came from
	declared := map[rule.ID]string{}
	for i, sh := range shards {
		switch {
		case sh.Implementation != first.Implementation:
			return nil, fmt.Errorf("summary %d is of implementation %q, summary 1 of %q: shards of one run test one implementation", i+1, sh.Implementation, first.Implementation)
		case sh.Version != first.Version:
			return nil, fmt.Errorf("summary %d is of %q, summary 1 of %q: shards of one run use one version", i+1, sh.Version, first.Version)
		case sh.Backend != first.Backend:
			return nil, fmt.Errorf("summary %d ran on %s, summary 1 on %s: shards of one run use one backend", i+1, sh.Backend, first.Backend)
		}
		s.Passed = s.Passed && sh.Passed
		if sh.Coverage != nil {
			for _, n := range sh.Coverage.NotChecked {
				if n.Why == outcome.DeclaredAway {
					declared[n.Rule] = n.Detail
				}
			}
		}
		if sh.Interrupted != "" {
			// A shard that did not finish leaves the run unfinished.
			why := fmt.Sprintf("shard %d: %s", i+1, sh.Interrupted)
			if s.Interrupted != "" {
				why = s.Interrupted + "; " + why
			}
			s.SetInterrupted(why)
		}
		for o, n := range sh.Totals {
			s.Totals[o] += n
		}
		for _, sc := range sh.Scenarios {
			if j, dup := owner[sc.Name]; dup {
				return nil, fmt.Errorf("scenario %q is in summaries %d and %d: shards must not overlap", sc.Name, j+1, i+1)
			}
			owner[sc.Name] = i
			s.Scenarios = append(s.Scenarios, sc)
		}
		for _, r := range sh.Rules {
			m, ok := byRule[r.ID]
			if !ok {
				m = &outcome.RuleReport{Rule: r.Rule}
				byRule[r.ID] = m
				order = append(order, r.ID)
			}
			m.Scenarios += r.Scenarios
			for _, o := range outcome.All {
				if l := list(m, o); l != nil {
					*l = append(*l, with(&r, o)...)
				}
			}
		}
	}
	sort.Slice(s.Scenarios, func(i, j int) bool { return s.Scenarios[i].Name < s.Scenarios[j].Name })
	// The specification's rules in its order, then any other, as Build lists them.
	ids := make([]rule.ID, 0, len(order))
	for _, r := range rule.All {
		if _, ok := byRule[r.ID]; ok {
			ids = append(ids, r.ID)
		}
	}
	for _, id := range order {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		m := byRule[id]
		for _, o := range outcome.All {
			if l := list(m, o); l != nil {
				sort.Strings(*l)
			}
		}
		decide(m)
		s.Rules = append(s.Rules, *m)
	}
	s.Coverage = outcome.CoverageOf(s, declared)
	return s, nil
}
