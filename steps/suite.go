package steps

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/featureloc"
	"presetsim.dev/presetsim/outcome"
)

// SuiteOptions configure a run of feature files.
type SuiteOptions struct {
	// Paths of feature files or folders; "features" when empty.
	Paths []string
	// FS holds the feature files Paths name; the operating system's
	// files when nil. presetsim.Suite is the suite the binary embeds.
	FS fs.FS
	// Format is a godog format ("pretty", "progress", "cucumber", "junit",
	// comma-separated, each optionally :FILE); "progress" when empty.
	// "progress" is this package's (progress.go): a character per step, in
	// rows of 70 (on a terminal one row, written over, but for rows that
	// hold a failure), and no summary, which the caller prints from the
	// outcomes.
	Format string
	// Tags filters scenarios by tag expression, e.g. "@R4.2 && ~@slow".
	Tags string
	// Concurrency runs that many scenarios at once; DefaultConcurrency when
	// zero. Scenarios tagged @serial run alone. A scenario waiting out a
	// settle window does not count (slots.go).
	Concurrency int
	// Output receives the formatter's output; os.Stdout when nil.
	Output io.Writer
	// TestingT, when set, runs each scenario as a subtest of it.
	TestingT *testing.T
	// KeepPods records in each Timing the pods the scenario left behind.
	KeepPods bool
	// Timings, when set, receives each scenario's result as it ends, so
	// that the caller can read what finished while the run goes on (an
	// interrupted run reports it); Run returns it. A new one when nil.
	Timings *Timings
	// Cucumber, when set, receives each scenario's entry of the Cucumber
	// JSON report as it ends (cucumber.go), whatever the format: the
	// caller writes it, whole or after an interrupt.
	Cucumber *Cucumber
	// ChunkScenarios is how many scenarios one godog run holds at most
	// (chunks.go); ChunkScenarios when zero. Only the "progress" format
	// without TestingT is run in chunks.
	ChunkScenarios int
}

// DefaultConcurrency is how many scenarios run at once unless told: enough
// to overlap the scenarios' waiting (settle windows, controllers, polls) on
// a 2-core machine, measured in docs/performance.md.
const DefaultConcurrency = 6

// NewTimings returns an empty Timings, for SuiteOptions.Timings.
func NewTimings() *Timings { return &Timings{start: map[string]time.Time{}} }

// Timings collects scenario durations.
type Timings struct {
	mu    sync.Mutex
	start map[string]time.Time
	list  []outcome.Scenario
}

// List returns the timings, slowest first.
func (t *Timings) List() []outcome.Scenario {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]outcome.Scenario(nil), t.list...)
	sort.Slice(out, func(i, j int) bool { return out[i].Duration > out[j].Duration })
	return out
}

// Snapshot is List and, when c is set, c's Cucumber JSON report, of the
// same scenarios: one that ends meanwhile is in neither (an interrupted
// run writes both).
func (t *Timings) Snapshot(c *Cucumber) ([]outcome.Scenario, []byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	list := append([]outcome.Scenario(nil), t.list...)
	sort.Slice(list, func(i, j int) bool { return list[i].Duration > list[j].Duration })
	if c == nil {
		return list, nil, nil
	}
	var b bytes.Buffer
	err := c.Write(&b)
	return list, b.Bytes(), err
}

// Median returns the median scenario duration.
func (t *Timings) Median() time.Duration {
	l := t.List()
	if len(l) == 0 {
		return 0
	}
	return l[len(l)/2].Duration
}

// Run runs the feature files against a World and returns godog's exit
// status (0 when every scenario passed) and the scenario timings.
func Run(w *harness.World, opts SuiteOptions) (int, *Timings) {
	if len(opts.Paths) == 0 {
		opts.Paths = []string{"features"}
	}
	opts.Paths = slowFirst(opts.FS, opts.Paths)
	if opts.Format == "" {
		opts.Format = "progress"
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	registerProgress()
	// godog's pretty formatter names every step's definition as the
	// registrar's wrapper; locations puts the step's own place there.
	colours, out := isTerminal(opts.Output), opts.Output
	if prettyToOutput(opts.Format) {
		out = newLocations(opts.Output)
	}
	timings := opts.Timings
	if timings == nil {
		timings = NewTimings()
	}
	// More scenarios run than work (slots.go): those beyond
	// opts.Concurrency wait out settle windows. One at a time stays one.
	var work *slots
	running := opts.Concurrency
	if running > 1 {
		work, running = newSlots(opts.Concurrency), opts.Concurrency*waitingPerSlot
	}
	scenarios := recording(w, opts, initializer(w, opts.FS, work), timings)
	suite := func(paths []string, fsys fs.FS, format string, out io.Writer) godog.TestSuite {
		return godog.TestSuite{
			Name:                "presetsim",
			ScenarioInitializer: scenarios,
			Options: &godog.Options{
				Format:      format,
				NoColors:    !colours,
				Paths:       paths,
				FS:          fsys,
				Tags:        opts.Tags,
				Concurrency: running,
				Output:      out,
				TestingT:    opts.TestingT,
				Strict:      true,
			},
		}
	}
	// Only the run's own progress format can be continued from one godog
	// run to the next; godog's formats (a report each) need one run.
	var chunks []chunk
	if opts.Format == "progress" && opts.TestingT == nil {
		size := opts.ChunkScenarios
		if size == 0 {
			size = ChunkScenarios
		}
		chunks, _ = chunked(opts.FS, opts.Paths, opts.Tags, size) // on error, one run: godog reports it
	}
	if opts.Format == "progress" {
		if len(chunks) == 0 {
			chunks = []chunk{{paths: opts.Paths, fs: opts.FS}}
		}
		// The rows are made here, where the writer is the run's own:
		// godog hands a formatter a wrapper, which is no terminal.
		shared := &rows{out: out, inPlace: colours}
		status := 0
		for _, c := range chunks {
			s := suite(c.paths, c.fs, marksFormat, shared)
			status = max(status, s.Run())
		}
		shared.end()
		return status, timings
	}
	s := suite(opts.Paths, opts.FS, formats(opts.Format), out)
	status := s.Run()
	if l, ok := out.(*locations); ok {
		_ = l.Flush()
	}
	return status, timings
}

// recording is the scenario initializer of a run: the step table (init),
// and hooks that record each scenario's outcome, checks and duration in
// timings, and let its namespaces go when it ends.
func recording(w *harness.World, opts SuiteOptions, init func(*godog.ScenarioContext), timings *Timings) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		init(sc)
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			timings.mu.Lock()
			timings.start[p.Id] = time.Now()
			timings.mu.Unlock()
			return ctx, nil
		})
		sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
			t := outcome.Scenario{Scenario: fmt.Sprintf("%s: %s", featureloc.File(p.Uri), p.Name)}
			for _, tag := range p.Tags {
				t.Tags = append(t.Tags, tag.Name)
			}
			s := from(ctx)
			if s != nil && s.unsupported != nil {
				t.Unsupported = s.unsupported.Reason
			}
			if s != nil {
				t.NotClaimed = s.notClaimed
				t.NotApplicable = s.notApplicable
				t.Notes = s.scenario.Notes()
				t.Checks = slices.Clone(s.checks)
				t.Findings = s.findings()
			}
			if err != nil && !errors.Is(err, godog.ErrSkip) {
				t.Failed, t.Err = true, err
			}
			if opts.KeepPods && s != nil {
				pods, perr := s.scenario.Pods(ctx)
				if perr != nil && !t.Failed {
					t.Failed, t.Err = true, perr
				}
				t.Pods = pods
			}
			// After the pods were read: nothing else will.
			if s != nil && backend.IsEphemeral(w.Objects()) {
				began := time.Now()
				derr := s.scenario.DeleteNamespaces(ctx)
				s.phases = append(s.phases, outcome.Phase{Name: outcome.PhaseNamespaces, Duration: time.Since(began)})
				if derr != nil && !t.Failed {
					t.Failed, t.Err = true, fmt.Errorf("unable to delete the scenario's namespaces: %w", derr)
				}
			} else if r, ok := w.Objects().(backend.Releaser); ok && s != nil {
				r.Release(s.scenario.OwnNamespaces())
			}
			timings.mu.Lock()
			if s != nil {
				t.Phases = s.phases
				// Under the timings' lock: an interrupted run's reports
				// (Timings.Snapshot) hold the same scenarios.
				if opts.Cucumber != nil {
					if cerr := opts.Cucumber.add(p, s.place, s.results); cerr != nil && !t.Failed {
						t.Failed, t.Err = true, cerr
					}
				}
			}
			t.Duration = time.Since(timings.start[p.Id])
			delete(timings.start, p.Id)
			timings.list = append(timings.list, t)
			timings.mu.Unlock()
			return ctx, nil
		})
	}
}
