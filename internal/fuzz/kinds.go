package fuzz

import (
	"slices"
	"strings"

	"presetsim.dev/presetsim/internal/oracle"
)

// tally groups a run's disagreements into kinds. A case that hypotheses
// explain (oracle.Diagnose) is kept by the set of them that do; once the
// run is over, resolve names for each such case the hypothesis that
// explains the most cases of the run — one fault explaining everything is
// the likeliest — so that cases one fault and another explain alike (a
// conflict unreported because the preset was never selected, say) are
// credited to the fault the rest of the run shows. The other
// disagreements are kinds by their rules and aspect (kindOf).
type tally struct {
	keys  []string // in the order first seen
	byKey map[string]*group
}

// group is the cases of one key: the first's disagreements and the
// hypotheses that explain them (none for a kind by rules and aspect).
type group struct {
	explainedBy []*oracle.Hypothesis
	// crowded is set when, while the first case ran, presets of other
	// namespaces selected its pod (oracle.Observed.SelectedElsewhere).
	crowded bool
	first   oracle.Disagreement
	seed    uint64
	count   int
	// more are the seeds of the key's next cases (eight bytes a case): a
	// kind's first case may not disagree run again alone.
	more []uint64
}

// kindTries bounds the cases of a kind that shrinking tries, one after the
// other, until one disagrees run again alone; historyTries those with a
// history of their own it tries first when the rule is one of state (R6).
const (
	kindTries    = 4
	historyTries = 16
)

func newTally() *tally { return &tally{byKey: map[string]*group{}} }

// add records a case's disagreements and returns those of a key not seen
// before (to print as they are found); crowded says whether presets of
// other namespaces selected its pod while it ran.
func (t *tally) add(seed uint64, ds []oracle.Disagreement, explainedBy []*oracle.Hypothesis, crowded bool) []oracle.Disagreement {
	var fresh []oracle.Disagreement
	seen := func(key string, g group, shown oracle.Disagreement) {
		if old, ok := t.byKey[key]; ok {
			old.count++
			old.more = append(old.more, seed)
			return
		}
		g.seed, g.count, g.crowded = seed, 1, crowded
		t.byKey[key] = &g
		t.keys = append(t.keys, key)
		fresh = append(fresh, shown)
	}
	if len(explainedBy) > 0 && len(ds) > 0 {
		names := make([]string, len(explainedBy))
		for i, h := range explainedBy {
			names[i] = h.Name
		}
		first := ds[0]
		first.Explain(explainedBy[0])
		seen("as if:"+strings.Join(names, "|"), group{explainedBy: explainedBy, first: ds[0]}, first)
		return fresh
	}
	for _, d := range ds {
		seen(kindOf(d), group{first: d}, d)
	}
	return fresh
}

// size is how many keys the tally holds so far.
func (t *tally) size() int { return len(t.keys) }

// resolve returns the run's kinds: each hypothesis chosen, greedily, as the
// one that explains the most cases not yet credited (ties: the one that
// comes first for most of them), then the kinds by rules and aspect; in
// the order their first case was found.
func (t *tally) resolve() []*Report {
	credited := map[string]*oracle.Hypothesis{}
	for {
		covers, firsts := map[*oracle.Hypothesis]int{}, map[*oracle.Hypothesis]int{}
		for _, key := range t.keys {
			g := t.byKey[key]
			if _, done := credited[key]; done || len(g.explainedBy) == 0 {
				continue
			}
			for _, h := range g.explainedBy {
				covers[h] += g.count
			}
			firsts[g.explainedBy[0]] += g.count
		}
		if len(covers) == 0 {
			break
		}
		var best *oracle.Hypothesis
		for _, h := range oracle.HypothesesInOrder() {
			if covers[h] > covers[best] || covers[h] == covers[best] && covers[h] > 0 && firsts[h] > firsts[best] {
				best = h
			}
		}
		for _, key := range t.keys {
			if g := t.byKey[key]; credited[key] == nil && slices.Contains(g.explainedBy, best) {
				credited[key] = best
			}
		}
	}
	var out []*Report
	byHypothesis := map[*oracle.Hypothesis]*Report{}
	for _, key := range t.keys {
		g := t.byKey[key]
		h := credited[key]
		if h != nil {
			if rep, ok := byHypothesis[h]; ok {
				rep.Count += g.count
				rep.more = append(append(rep.more, g.seed), g.more...)
				continue
			}
		}
		d := g.first
		d.Explain(h)
		rep := &Report{Rules: d.Rules, Summary: d.Summary, CaseSeed: g.seed, Count: g.count, Detail: d.Detail, found: d, crowded: g.crowded, more: slices.Clone(g.more)}
		if h != nil {
			byHypothesis[h] = rep
		}
		out = append(out, rep)
	}
	return out
}
