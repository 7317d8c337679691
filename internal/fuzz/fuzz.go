package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/internal/words"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
)

// Options configure a fuzz run.
type Options struct {
	// Cases is how many cases to generate (when Time is zero, or whichever
	// ends first).
	Cases int
	// Seed is the run's seed: case i is Generate(CaseSeed(Seed, i)).
	Seed uint64
	// Shard, when N is not zero, runs only shard I of N (1 ≤ I ≤ N) of
	// the run's Cases: the cases i with i mod N = I-1, so that the shards
	// together are the run, each case once, on any machine.
	Shard Shard
	// Time bounds the run, when not zero.
	Time time.Duration
	// Out is where minimal scenarios are written (one .feature per
	// disagreement); nothing is written when empty.
	Out string
	// Concurrency is how many cases run at once; 1 when zero.
	Concurrency int
	// Shrink is how many distinct disagreements are shrunk (the first of
	// each kind); DefaultShrink when zero, none when negative.
	Shrink int
	// StopAtFirst ends the run at the first case that disagrees with the
	// model: the cases not yet done are dropped, not counted, and the
	// disagreements found are reported (and written and shrunk as Out and
	// Shrink say) as at the end of a whole run. A mutation test wants
	// only whether a run finds anything.
	StopAtFirst bool
	// Progress receives a progress line now and then, and Log one line per
	// disagreement found; both may be nil.
	Progress, Log io.Writer
}

// errFound is why a StopAtFirst run's cases ended early.
var errFound = errors.New("a case disagreed with the model")

// Shard is shard I of N of a run's cases.
type Shard struct{ I, N int }

// String is "I/N", "" for the whole run.
func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// cases is how many cases of total the shard holds, and the index in the
// run of the shard's k-th case.
func (s Shard) cases(total int) (int, func(k int) int) {
	if s.N == 0 {
		return total, func(k int) int { return k }
	}
	return (total - s.I + s.N) / s.N, func(k int) int { return k*s.N + s.I - 1 }
}

// DefaultShrink is how many distinct disagreements a run shrinks.
const DefaultShrink = 8

// settlingPerWorker bounds the cases admitted and not yet settled, per
// worker: with a settle window W and a rate R, about R×W cases settle at
// once (1 s × 50 cases/s on a cluster, 200 ms × 2,000 cases/s offline).
const settlingPerWorker = 64

// Summary is a run's result, as fuzz.json holds it.
type Summary struct {
	Seed uint64 `json:"seed"`
	// Shard is "I/N" when the run was one shard of a larger one.
	Shard         string   `json:"shard,omitempty"`
	Cases         int      `json:"cases"`
	Disagreements []Report `json:"disagreements"`
	// Disagreeing is how many cases disagreed in all (Disagreements holds
	// one per kind).
	Disagreeing int     `json:"disagreeingCases"`
	Seconds     float64 `json:"seconds"`
	// CasesSeconds is how long the cases took, before any shrinking, and
	// Admissions how many requests they had the implementation admit (a
	// pod's creations, a dry run among them, and its follow-ups): the
	// run's pace is Cases and Admissions over CasesSeconds.
	CasesSeconds float64 `json:"casesSeconds"`
	Admissions   int     `json:"admissions"`
	// FirstSeconds is how long the run took to find its first
	// disagreement, and FirstCases how many cases it had done then; both
	// zero when it found none.
	FirstSeconds float64 `json:"firstSeconds,omitempty"`
	FirstCases   int     `json:"firstCases,omitempty"`
	// PeakRSSMiB is the peak memory of the process that ran the cases,
	// when its caller measured it.
	PeakRSSMiB float64 `json:"peakRSSMiB,omitempty"`
	// Interrupted says what a run cut short did, when one was: its cases
	// and kinds are those done.
	Interrupted string `json:"interrupted,omitempty"`
	// Propagation is what the run's histories measured of the
	// implementation's propagation lag, when it had some (R6.1).
	Propagation *Propagation `json:"propagation,omitempty"`
	// Findings are what the implementation did with requests its
	// registration does not send it, by rule: they fail nothing
	// (backend.UnsubscribedReport).
	Findings []FindingCount `json:"findings,omitempty"`
}

// FindingCount is how many cases showed a finding on a rule, and the
// first of them.
type FindingCount struct {
	Rule    rule.ID `json:"rule"`
	Cases   int     `json:"cases"`
	Example string  `json:"example"`
}

// countFindings adds a case's findings to counts, a case once per rule.
func countFindings(counts []FindingCount, findings []outcome.Finding) []FindingCount {
	var seen []rule.ID
	for _, f := range findings {
		if slices.Contains(seen, f.Rule) {
			continue
		}
		seen = append(seen, f.Rule)
		i := slices.IndexFunc(counts, func(c FindingCount) bool { return c.Rule == f.Rule })
		if i < 0 {
			counts = append(counts, FindingCount{Rule: f.Rule, Example: f.Text})
			i = len(counts) - 1
		}
		counts[i].Cases++
	}
	return counts
}

// Propagation is how long an implementation took to show a preset
// created again: Shown versions within the window, the longest of them
// MaxSeconds, and Late ones not shown within it.
type Propagation struct {
	Shown         int     `json:"shown"`
	Late          int     `json:"late"`
	MaxSeconds    float64 `json:"maxSeconds"`
	WindowSeconds float64 `json:"windowSeconds"`
}

// Report is one kind of disagreement: its first case, shrunk.
type Report struct {
	Rules   []rule.ID `json:"rules"`
	Feature string    `json:"feature,omitempty"`
	Summary string    `json:"summary"`
	// CaseSeed regenerates the case as found (before shrinking): the
	// kind's first, or, when that one agreed run again alone, the first of
	// the next that did not.
	CaseSeed uint64 `json:"caseSeed"`
	// Count is how many cases disagreed this way.
	Count  int    `json:"count"`
	Detail string `json:"detail,omitempty"`
	// NotReproduced says why the case, run again alone, did not disagree:
	// its feature shows the case, not the disagreement.
	NotReproduced string `json:"notReproduced,omitempty"`
	// NotShrunk is set on a kind written as found, beyond the kinds a run
	// shrinks (Options.Shrink).
	NotShrunk bool `json:"notShrunk,omitempty"`
	// ShrinkSeconds is how long shrinking the kind's case took, when it
	// was shrunk.
	ShrinkSeconds float64 `json:"shrinkSeconds,omitempty"`
	// found is the first disagreement of the kind, as found.
	found oracle.Disagreement
	// crowded is set when, while its first case ran, presets of other
	// namespaces selected the pod.
	crowded bool
	// more are the seeds of the kind's next cases, which shrinking tries
	// when the first agrees run again alone.
	more []uint64
}

// CaseSeed is the seed of case i of a run (splitmix64 of the two).
func CaseSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Run generates cases, has the World's implementation admit each and
// compares the outcomes with the model under the World's profile. When
// ctx ends first (and not Options.Time), it returns what was done, with
// Summary.Interrupted saying so, and ctx's cause.
func Run(ctx context.Context, w *harness.World, opts Options) (_ Summary, err error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 1
	}
	if opts.Shrink == 0 {
		opts.Shrink = DefaultShrink
	}
	if n := opts.Shard.N; n != 0 && (n < 1 || opts.Shard.I < 1 || opts.Shard.I > n) {
		return Summary{}, fmt.Errorf("shard %s: want I/N with 1 ≤ I ≤ N", opts.Shard)
	}
	own, caseIndex := opts.Shard.cases(opts.Cases)
	start := time.Now()
	parent := ctx // a signal cancels it; the run's time ends ctx alone
	if opts.Time > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Time)
		defer cancel()
	}
	// stopCases ends the run's cases, not the run, at its first disagreement
	// (StopAtFirst).
	ctx, stopCases := context.WithCancelCause(ctx)
	defer stopCases(nil)
	pool, err := newNamespaces(w)
	if err != nil {
		return Summary{}, err
	}
	defer func() {
		if cerr := pool.close(context.WithoutCancel(ctx)); cerr != nil && err == nil {
			err = cerr
		}
	}()
	r := runner{w: w, namespaces: pool, lags: &lags{}}
	var (
		next, done atomic.Int64
		mu         sync.Mutex
		kinds      = newTally()
		failed     error
		wg         sync.WaitGroup
	)
	progress := newProgress(opts.Progress, own)
	disagreeing := 0            // cases with a disagreement, under mu
	admissions := 0             // the done cases', under mu
	var findings []FindingCount // the done cases', under mu
	var firstSeconds float64
	var firstCases int
	record := func(c Case, t *trial, ds []oracle.Disagreement, explainedBy []*oracle.Hypothesis, crowded bool, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if ctx.Err() == nil && failed == nil {
				failed = fmt.Errorf("case seed %d: %w", c.Seed, err)
			}
			return
		}
		done.Add(1)
		admissions += t.admissions
		findings = countFindings(findings, t.findings)
		if len(ds) > 0 {
			disagreeing++
			if disagreeing == 1 {
				firstSeconds, firstCases = time.Since(start).Seconds(), int(done.Load())
				if opts.StopAtFirst {
					stopCases(errFound)
				}
			}
		}
		for _, d := range kinds.add(c.Seed, ds, explainedBy, crowded) {
			if opts.Log != nil {
				fmt.Fprintf(opts.Log, "disagreement (%s), case seed %d: %s\n", rule.Join(d.Rules, ", "), c.Seed, d.Summary)
			}
		}
		progress.update(int(done.Load()), kinds.size())
	}
	// An admitted case waits out its settle window in a goroutine of its
	// own, so that a window costs no worker its time; inflight bounds how
	// many cases are admitted and not yet settled, which bounds memory
	// (and, on a cluster, the namespaces that exist at once).
	inflight := make(chan struct{}, settlingPerWorker*opts.Concurrency)
	var settlers sync.WaitGroup
	for range opts.Concurrency {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				mu.Lock()
				stop := failed != nil
				mu.Unlock()
				if k >= own || ctx.Err() != nil || stop {
					return
				}
				c := Generate(CaseSeed(opts.Seed, caseIndex(k)))
				inflight <- struct{}{}
				t, err := r.admit(ctx, c)
				var ds []oracle.Disagreement
				if err == nil {
					ds, err = oracle.Check(ctx, w, t.obs, false)
				}
				if err != nil {
					if t != nil {
						_ = r.settle(ctx, t)
					}
					<-inflight
					record(c, t, nil, nil, false, err)
					continue
				}
				settlers.Go(func() {
					defer func() { <-inflight }()
					err := r.settle(ctx, t)
					ds = append(ds, oracle.EventDisagreements(w, t.obs)...)
					record(c, t, ds, oracle.Diagnose(w, t.obs, ds, true), t.obs.SelectedElsewhere(), err)
				})
			}
		})
	}
	wg.Wait()
	settlers.Wait()
	casesSeconds := time.Since(start).Seconds()
	found := kinds.resolve()
	progress.finish(int(done.Load()), admissions, len(found))
	if failed != nil {
		return Summary{}, failed
	}
	interrupted := context.Cause(parent)
	if interrupted == nil && opts.Time == 0 {
		if interrupted = context.Cause(ctx); errors.Is(interrupted, errFound) {
			interrupted = nil
		}
	}
	sum := Summary{Seed: opts.Seed, Shard: opts.Shard.String(), Cases: int(done.Load())}
	sum.Disagreeing = disagreeing
	sum.CasesSeconds, sum.Admissions = casesSeconds, admissions
	sum.FirstSeconds, sum.FirstCases = firstSeconds, firstCases
	sum.Findings = findings
	if len(findings) > 0 && opts.Progress != nil {
		for _, f := range findings {
			fmt.Fprintf(opts.Progress, "finding (%s, %s; not a disagreement: its registration does not send the request), e.g. %s\n", f.Rule, words.Count(f.Cases, "case"), f.Example)
		}
	}
	written := map[string]bool{}
	for i, rep := range found {
		// A kind that no hypothesis explains, found while presets of other
		// namespaces selected its pod, is run again alone whatever is
		// written: whether it agrees then decides the rule named first.
		if interrupted == nil && (opts.Out != "" || rep.crowded && rep.found.AsIf == "") {
			// Every kind is written; the first opts.Shrink are shrunk. A
			// case first of two kinds is written once for each.
			name := fmt.Sprintf("case-%d", rep.CaseSeed)
			if written[name] {
				name = fmt.Sprintf("case-%d-%d", rep.CaseSeed, i+1)
			}
			written[name] = true
			if err := r.shrinkAndWrite(context.WithoutCancel(ctx), rep, opts, name, opts.Out != "" && i < opts.Shrink); err != nil {
				return sum, err
			}
		}
		sum.Disagreements = append(sum.Disagreements, *rep)
	}
	sum.Seconds = time.Since(start).Seconds()
	if l := r.lags; l.shown+l.late > 0 {
		sum.Propagation = &Propagation{Shown: l.shown, Late: l.late, MaxSeconds: l.max.Seconds(), WindowSeconds: w.Profile.Propagation().Seconds()}
	}
	if interrupted != nil {
		sum.Interrupted = fmt.Sprintf("%d of the %d cases done, the others not run; nothing shrunk", sum.Cases, own)
		return sum, interrupted
	}
	return sum, nil
}

// disagreements runs one case and checks it, its events too when asked;
// explainedBy are the hypotheses that explain them (oracle.Diagnose).
func (r runner) disagreements(ctx context.Context, c Case, events bool) (ds []oracle.Disagreement, explainedBy []*oracle.Hypothesis, err error) {
	t, err := r.admit(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if events {
		err = r.settle(ctx, t)
	} else {
		err = r.release(context.WithoutCancel(ctx), t)
	}
	if err != nil {
		return nil, nil, err
	}
	ds, err = oracle.Check(ctx, r.w, t.obs, false)
	if err != nil {
		return nil, nil, err
	}
	if events {
		ds = append(ds, oracle.EventDisagreements(r.w, t.obs)...)
	}
	return ds, oracle.Diagnose(r.w, t.obs, ds, events), nil
}

// kindOf groups disagreements: those one hypothesis explains (the
// implementation behaves as if it …) are one kind, whatever of the outcome
// showed it; the others by their rules and the aspect of the outcome,
// whichever of the two requests showed it and whichever preset was the
// invalid one.
func kindOf(d oracle.Disagreement) string {
	if d.AsIf != "" {
		return "as if it " + d.AsIf
	}
	return rule.Join(d.Rules, ",") + "|" + string(d.Aspect)
}

// historyFirst returns seeds with those of cases with a history of their
// own (Case.Recreate) first, at most limit of them, the others after in
// their order, and how many lead: what a case without one shows of state
// over time comes from the cases before it. It generates each case once,
// and none after the limit is reached.
func historyFirst(seeds []uint64, limit int) ([]uint64, int) {
	with := make([]uint64, 0, min(len(seeds), limit))
	without := make([]uint64, 0, len(seeds))
	for i, seed := range seeds {
		if len(with) == limit {
			without = append(without, seeds[i:]...)
			break
		}
		if Generate(seed).Recreate != nil {
			with = append(with, seed)
		} else {
			without = append(without, seed)
		}
	}
	return append(with, without...), len(with)
}

// shrinkAndWrite shrinks a report's case, when shrink is set, and writes
// it as a feature, name.feature, when opts.Out is set. A case not shrunk
// that no hypothesis explains, found while presets of other namespaces
// selected its pod, is run again alone once all the same, to tell whether
// what it showed depends on other cases.
func (r runner) shrinkAndWrite(ctx context.Context, rep *Report, opts Options, name string, shrink bool) error {
	c := Generate(rep.CaseSeed)
	r.eventWait = r.w.Timeouts.Settle
	if len(rep.found.Rules) > 0 && rep.found.Rules[0].Section() == "R6" {
		// State over time: the run's namespaces served earlier cases,
		// whose presets a stale implementation may still apply. Each case
		// of the shrinking runs in namespaces never used before, so that
		// what is written shows the disagreement from the case's own
		// history, as a feature's scenario runs it.
		fresh, err := newNamespaces(r.w)
		if err != nil {
			return err
		}
		fresh.quarantine = neverAgain
		defer func() { _ = fresh.close(context.WithoutCancel(ctx)) }()
		r.namespaces = fresh
	}
	events := rep.found.Aspect.AboutEvents()
	small := c
	d := &rep.found
	switch {
	case shrink:
		start := time.Now()
		small, d = r.shrink(ctx, c, rep.found, events)
		// A case that agrees run again alone showed what it showed beside
		// other cases (state they left, R6; their presets, R2.2): the
		// kind's next cases may show it on their own. When the rule is
		// one of state, those with a history of their own are tried
		// first, historyTries of them, since the others show only what
		// earlier cases left.
		next, tries := rep.more, kindTries-1
		if len(rep.found.Rules) > 0 && rep.found.Rules[0].Section() == "R6" {
			var histories int
			next, histories = historyFirst(rep.more, historyTries)
			tries = max(tries, histories)
		}
		for _, seed := range next[:min(len(next), tries)] {
			if d != nil || ctx.Err() != nil {
				break
			}
			if shrunk, again := r.shrink(ctx, Generate(seed), rep.found, events); again != nil {
				small, d, rep.CaseSeed = shrunk, again, seed
			}
		}
		rep.ShrinkSeconds = time.Since(start).Round(time.Millisecond).Seconds()
	case rep.crowded && rep.found.AsIf == "":
		// Not shrunk, but its first rule depends on whether it comes
		// back alone.
		ds, explainedBy, err := r.disagreements(ctx, c, events)
		if err != nil {
			return err
		}
		d = still(rep.found, ds, explainedBy)
	}
	rep.NotShrunk = !shrink && opts.Out != ""
	switch {
	case d != nil && d.AsIf != "" && rep.found.AsIf == "":
		// What no hypothesis explained beside other cases one explains
		// alone: its rule comes first.
		rep.Rules, rep.Summary, rep.Detail = d.Rules, d.Summary, d.Detail
	case d != nil && shrink:
		rep.Summary, rep.Detail = d.Summary, d.Detail
	case d != nil:
	case rep.crowded && rep.found.AsIf == "":
		// What the case showed beside other cases and not alone has a
		// cause outside it; presets of other namespaces that selected
		// its pod are the nearest (R2.2 comes before everything its
		// diff names).
		rep.Rules = slices.Insert(slices.DeleteFunc(rep.Rules, func(id rule.ID) bool { return id == rule.R2_2 }), 0, rule.R2_2)
		rep.NotReproduced = "run again alone, the case agreed; while it ran, presets of other namespaces selected its pod, which it behaves as if it took (R2.2), or the implementation is flaky"
	default:
		rep.NotReproduced = "run again alone, the case agreed: what it showed depends on other cases (presets of other namespaces, R2.2; state kept from earlier cases, R6), or the implementation is flaky"
	}
	if opts.Out == "" {
		return nil
	}
	return r.write(ctx, small, rep, opts, name)
}

// write runs a case once more and writes it as a feature, name.feature.
func (r runner) write(ctx context.Context, c Case, rep *Report, opts Options, name string) error {
	obs, err := r.run(ctx, c)
	if err != nil {
		return err
	}
	text := Feature(r.w, c, obs, rep)
	if rep.NotReproduced != "" {
		text = "# Not reproduced: " + rep.NotReproduced + ".\n" + text
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(opts.Out, name+".feature")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	rep.Feature = path
	return nil
}

// WriteSummary writes fuzz.json into dir.
func WriteSummary(dir string, s Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if s.Disagreements == nil {
		s.Disagreements = []Report{}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "fuzz.json"), append(data, '\n'), 0o644)
}

// Rules lists the rules of every disagreement, sorted.
func (s Summary) Rules() []rule.ID {
	var out []rule.ID
	for _, d := range s.Disagreements {
		out = append(out, d.Rules...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
