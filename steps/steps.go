package steps

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"presetsim.dev/presetsim/rule"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/featureloc"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/oracle"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/outcome"
)

// state is one scenario's state, kept in the context.
type state struct {
	scenario *scenario.Scenario
	steps    []*godog.Step
	locs     []featureloc.Step
	place    featureloc.Place
	current  featureloc.Step
	// results are how its steps ended so far, in order, for the Cucumber
	// report.
	results []stepResult
	// unsupported is why a step could not run on the backend, if one could not.
	unsupported *backend.UnsupportedError
	// notClaimed is the capability the scenario needs and the profile does
	// not claim; the scenario is then not run.
	notClaimed string
	// notApplicable says why the scenario does not apply to the
	// implementation under test; it is then not run.
	notApplicable string
	// unlock releases the scenario's hold on the serial lock.
	unlock func()
	// slots are the run's work slots; holding says whether the scenario
	// holds one (it gives it back while it waits out a settle window).
	slots   *slots
	holding bool
	// tags are the scenario's tags with its feature's ("@R2.4").
	tags []string
	// step is the text of the step running now, and began when it began:
	// when the step before it ended (ended), so that the steps' phases are
	// contiguous and count the time between steps too, or at its own
	// start for the first.
	step         string
	began, ended time.Time
	// phases are where the scenario's time went so far (outcome.Phase).
	phases []outcome.Phase
	// checks are the outcomes of the steps so far (see Check).
	checks []outcome.Check
	// window is the settle window the current step watched for, when it
	// checks that something does not happen.
	window time.Duration
	// acted is when the last setup step (one that creates, changes or
	// deletes something) ended: settle windows count from it
	// (scenario.Window).
	acted time.Time
	// model is how far the scenario's pods were compared with the model.
	model struct {
		checked      int                  // admissions compared so far
		disagreement *oracle.Disagreement // the first that disagreed
		reported     bool                 // whether a check reported it
	}
}

// record adds a check's outcome for the current step.
func (s *state) record(c outcome.Check) {
	c.Step, c.Line, c.Window = s.step, s.current.Line, s.window
	s.checks = append(s.checks, c)
}

// forWindow ends the steps that check that something does not happen: an
// optional " for <duration>" (Go's syntax: 500ms, 5s, 1m) overrides the
// run's settle window for that step.
const forWindow = `(?: for (\S+))?$`

// settle is the window a "never" step watches for: the step's own length,
// when it names one, else the run's, from the end of the last setup step;
// the check's record keeps its length.
func (s *state) settle(own string) (scenario.Window, error) {
	var override time.Duration
	if own != "" {
		d, err := time.ParseDuration(own)
		if err != nil || d <= 0 {
			return scenario.Window{}, fmt.Errorf("%q is not a settle window: write a positive duration, as in \"for 500ms\" or \"for 5s\"", own)
		}
		override = d
	}
	s.window = s.scenario.SettleWindow(override)
	return scenario.Window{Length: s.window, From: s.acted}, nil
}

// profile is the profile of the implementation under test.
func (s *state) profile() *profile.Profile { return s.scenario.World().Profile }

// declared reports whether a failed check is a difference the profile
// declares: every rule it is credited to is declared different, in a way
// this kind of check shows.
func (s *state) declared(rules []rule.ID, spec checkSpec) (string, bool) {
	if len(rules) == 0 || spec.shows == "" {
		return "", false
	}
	var reasons []string
	for _, r := range rules {
		d, ok := s.profile().Declared(r, spec.shows)
		if !ok {
			return "", false
		}
		if reason := d.String(); !slices.Contains(reasons, reason) {
			reasons = append(reasons, reason)
		}
	}
	return fmt.Sprintf("profile %s declares %s", s.profile().Metadata.Name, strings.Join(reasons, "; ")), true
}

// onlyAPIRules reports whether every rule a scenario is tagged with is one
// of R1, the API object's.
func onlyAPIRules(tags []string) bool {
	rules := rule.Tags(tags)
	for _, r := range rules {
		if r.Section() != "R1" {
			return false
		}
	}
	return len(rules) > 0
}

// SerialTag marks scenarios that change what every scenario shares (the
// node count): they run alone, never beside another scenario.
const SerialTag = "@serial"

type stateKey struct{}

func from(ctx context.Context) *state {
	s, _ := ctx.Value(stateKey{}).(*state)
	return s
}

// source is where the current step's DocString starts.
func (s *state) source() manifest.Source {
	line := s.current.DocLine
	if line == 0 {
		line = s.current.Line
	}
	return manifest.Source{File: s.current.File, Line: line}
}

// Initializer returns the scenario initializer for a World: it registers the
// step language and gives each scenario a fresh scenario.Scenario. fsys
// holds the feature files (the operating system's when nil), for the
// steps' locations.
func Initializer(w *harness.World, fsys fs.FS) func(*godog.ScenarioContext) {
	return initializer(w, fsys, nil)
}

// initializer is Initializer with work slots (slots.go): nil, or one per
// scenario that may work at once.
func initializer(w *harness.World, fsys fs.FS, work *slots) func(*godog.ScenarioContext) {
	loc := featureloc.New(fsys)
	var serial sync.RWMutex // held shared by every scenario, exclusively by @serial ones
	return func(sc *godog.ScenarioContext) {
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			place, err := loc.Place(p)
			locs := place.Steps
			if err != nil {
				// Locations only improve messages; never fail a scenario for them.
				locs = make([]featureloc.Step, len(p.Steps))
				for i := range locs {
					locs[i] = featureloc.Step{File: p.Uri}
				}
			}
			tags := make([]string, len(p.Tags))
			for i, t := range p.Tags {
				tags[i] = t.Name
			}
			s := &state{scenario: scenario.New(w), steps: p.Steps, locs: locs, place: place, tags: tags}
			ctx = context.WithValue(ctx, stateKey{}, s)
			if capability, ok := w.Profile.Unclaimed(tags); ok {
				s.notClaimed = string(capability)
				return ctx, fmt.Errorf("not claimed by profile %s: @%s: %w", w.Profile.Metadata.Name, capability, godog.ErrSkip)
			}
			if reason := w.HarnessCRD(); reason != "" && onlyAPIRules(tags) {
				s.notApplicable = reason
				return ctx, fmt.Errorf("not applicable: %s: %w", reason, godog.ErrSkip)
			}
			if slices.Contains(tags, SerialTag) {
				serial.Lock()
				s.unlock = serial.Unlock
			} else {
				serial.RLock()
				s.unlock = serial.RUnlock
			}
			// The slot after the serial lock: a scenario waiting for the
			// lock holds no slot that one holding it needs to finish.
			s.slots = work
			if err := work.acquire(ctx, false); err != nil {
				return ctx, err
			}
			s.holding = true
			return ctx, nil
		})
		sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
			s := from(ctx)
			s.step, s.window, s.began = st.Text, 0, s.ended
			if s.began.IsZero() {
				s.began = time.Now()
			}
			for i, candidate := range s.steps {
				if candidate.Id == st.Id {
					s.current = s.locs[i]
				}
			}
			return ctx, nil
		})
		sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
			s := from(ctx)
			if s == nil {
				return ctx, nil
			}
			result := stepResult{status: status, err: err}
			if !s.began.IsZero() { // a step godog skipped had no Before
				s.ended = time.Now()
				result.duration = s.ended.Sub(s.began)
				s.phases = append(s.phases, outcome.Phase{Name: st.Text, Duration: result.duration})
				s.began = time.Time{}
			}
			s.results = append(s.results, result)
			if u, ok := backend.IsUnsupported(err); ok && s.unsupported == nil {
				s.unsupported = u
			}
			return ctx, nil
		})
		sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
			if s := from(ctx); s != nil {
				if s.unlock != nil {
					defer s.unlock()
					s.unlock = nil
				}
				if s.holding {
					defer s.slots.release()
					s.holding = false
				}
				var verr error
				if err == nil && ctx.Err() == nil {
					began := time.Now()
					verr = s.finalVerdict(ctx)
					s.phases = append(s.phases, outcome.Phase{Name: outcome.PhaseModel, Duration: time.Since(began)})
				}
				// The causes come first: a request never sent (R5.4),
				// then one never answered (R5.3).
				delivered := func() error { return s.delivered(ctx) }
				for _, cause := range []func() error{s.answered, delivered} {
					if cerr := cause(); cerr != nil && err == nil && verr == nil {
						verr = cerr
					}
				}
				began := time.Now()
				cerr := s.scenario.Cleanup(ctx)
				s.phases = append(s.phases, outcome.Phase{Name: outcome.PhaseCleanUp, Duration: time.Since(began)})
				if cerr != nil {
					return ctx, errors.Join(verr, fmt.Errorf("unable to clean up after the scenario: %w", cerr))
				}
				if verr != nil {
					return ctx, verr
				}
			}
			return ctx, nil
		})
		registerAll(registrar{sc: sc, timeout: w.Timeouts.StepTimeout()})
	}
}

func register(sc registrar) {
	sc.Step(`^the objects:$`, setup(shows.admitted, rule.R4_2), createObjects)
	sc.Step(`^I create the objects:$`, setup(shows.admitted, rule.R4_2), createObjects)
	sc.Step(`^the (PodPreset|ConfigMap|Secret|Service):$`, setup("", rule.R1_2), createKind)
	sc.Step(`^I create the pod:$`, setup(shows.admitted, rule.R4_2), func(ctx context.Context, doc *godog.DocString) error {
		return createKind(ctx, "Pod", doc)
	})
	sc.Step(`^I try to create:$`, attempt(), func(ctx context.Context, doc *godog.DocString) error {
		s := from(ctx)
		return s.scenario.TryCreate(ctx, s.source(), doc.Content, false)
	})
	sc.Step(`^I try to create with a server-side dry run:$`, attempt(), func(ctx context.Context, doc *godog.DocString) error {
		s := from(ctx)
		return s.scenario.TryCreate(ctx, s.source(), doc.Content, true)
	})
	sc.Step(`^the dry-run pod should be:$`, podCheck(rule.R2_1), func(ctx context.Context, doc *godog.DocString) error {
		s := from(ctx)
		return s.scenario.DryRunPodShouldBe(ctx, s.source(), doc.Content)
	})
	sc.Step(`^the pod "([^"]*)" should not exist$`, check(shows.content, rule.R2_1), func(ctx context.Context, name string) error {
		return from(ctx).scenario.PodShouldNotExist(ctx, name)
	})
	sc.Step(`^the ([A-Z]\w*) "([^"]*)" should match:$`, check(""), func(ctx context.Context, kind, name string, doc *godog.DocString) error {
		s := from(ctx)
		return s.scenario.ShouldMatch(ctx, kind, name, s.source(), doc.Content)
	})
	sc.Step(`^the ([A-Z]\w*) "([^"]*)" should not exist$`, check(""), func(ctx context.Context, kind, name string) error {
		return from(ctx).scenario.ShouldNotExist(ctx, kind, name)
	})
	sc.Step(`^I try to update the PodPreset "([^"]*)" to:$`, attempt(), func(ctx context.Context, name string, doc *godog.DocString) error {
		s := from(ctx)
		return s.scenario.TryUpdatePreset(ctx, name, s.source(), doc.Content)
	})
	sc.Step(`^I (label|annotate) the pod "([^"]*)" with "([^"]*)"$`, setup(""), func(ctx context.Context, verb, name, pair string) error {
		key, value, ok := strings.Cut(pair, "=")
		if !ok || key == "" {
			return fmt.Errorf("%q: want key=value", pair)
		}
		field := map[string]string{"label": "label", "annotate": "annotation"}[verb]
		return from(ctx).scenario.SetPodMetadata(ctx, name, field, key, value)
	})
	sc.Step(`^I add the ephemeral container to the pod "([^"]*)":$`, checkSpec{setup: true, fragment: true, narrow: denied}, func(ctx context.Context, name string, doc *godog.DocString) error {
		s := from(ctx)
		return s.scenario.AddEphemeralContainer(ctx, name, s.source(), doc.Content)
	})
	sc.Step(`^another admission webhook annotates every pod with "([^"]*)"$`, setup(""), func(ctx context.Context, pair string) error {
		key, value, ok := strings.Cut(pair, "=")
		if !ok || key == "" {
			return fmt.Errorf("%q: want key=value", pair)
		}
		return from(ctx).scenario.AnnotateAfter(ctx, key, value)
	})
	sc.Step(`^the pod "([^"]*)" should be as updated$`, updateCheck(), func(ctx context.Context, name string) error {
		return from(ctx).scenario.PodShouldBeAsUpdated(ctx, name)
	})
	sc.Step(`^the request should succeed$`, checkSpec{rules: append(slices.Clone(rule.Validation), rule.R2_1, rule.R4_2), shows: shows.admitted, narrow: denied}, func(ctx context.Context) error {
		return from(ctx).scenario.Succeeded()
	})
	sc.Step(`^the request should be rejected with a message containing "(.*)"$`, rejectionCheck(), func(ctx context.Context, text string) error {
		return from(ctx).scenario.Rejected(unquote(text))
	})
	sc.Step(`^the request should have a warning containing "(.*)"$`, needs(profile.Warnings, check(shows.warnings, rule.R4_3)), func(ctx context.Context, text string) error {
		return from(ctx).scenario.Warned(unquote(text))
	})
	sc.Step(`^the request should have no warnings$`, needs(profile.Warnings, check(shows.warnings, rule.R4_3)), func(ctx context.Context) error {
		return from(ctx).scenario.NotWarned()
	})
	sc.Step(`^the pod "([^"]*)" should be:$`, podCheck(), func(ctx context.Context, name string, doc *godog.DocString) error {
		s := from(ctx)
		return s.scenario.PodShouldBe(ctx, name, s.source(), doc.Content)
	})
	sc.Step(`^the pod "([^"]*)" should have the annotations:$`, check(shows.content, rule.R3_7), func(ctx context.Context, name string, table *godog.Table) error {
		rows, err := tableRows(table, "key", "value")
		if err != nil {
			return err
		}
		want := map[string]string{}
		for _, r := range rows {
			want[r["key"]] = r["value"]
		}
		return from(ctx).scenario.PodHasAnnotations(ctx, name, want)
	})
	sc.Step(`^the pod "([^"]*)" should have no PodPreset annotations$`, check(shows.content, rule.Selection...), func(ctx context.Context, name string) error {
		return from(ctx).scenario.PodHasNoPresetAnnotations(ctx, name)
	})
	sc.Step(`^(\d+) pods? owned by the (\w+) "([^"]*)" should be:$`, podCheck(), func(ctx context.Context, n, kind, name string, doc *godog.DocString) error {
		count, err := strconv.Atoi(n)
		if err != nil {
			return err
		}
		s := from(ctx)
		return s.scenario.OwnedPodsShouldBe(ctx, count, kind, name, s.source(), doc.Content)
	})
	sc.Step(`^the (\w+) "([^"]*)" should be as submitted$`, asSubmittedCheck(), func(ctx context.Context, kind, name string) error {
		return from(ctx).scenario.ObjectAsSubmitted(ctx, kind, name)
	})
	sc.Step(`^the (\w+) "([^"]*)" should have the event:$`, needs(profile.Events, check(shows.events, rule.R4_3, rule.R4_1)), func(ctx context.Context, kind, name string, table *godog.Table) error {
		rows, err := tableRows(table, "type", "reason", "message")
		if err != nil {
			return err
		}
		for _, r := range rows {
			want := scenario.EventSpec{Type: r["type"], Reason: r["reason"], Message: r["message"]}
			if err := from(ctx).scenario.HasEvent(ctx, kind, name, want); err != nil {
				return err
			}
		}
		return nil
	})
	sc.Step(`^the (\w+) "([^"]*)" should have no events with reason "([^"]*)"`+forWindow, needs(profile.Events, check(shows.events, rule.R2_1, rule.R3_4, rule.R4_1, rule.R4_3)), func(ctx context.Context, kind, name, reason, window string) error {
		s := from(ctx)
		win, err := s.settle(window)
		if err != nil {
			return err
		}
		return s.idle(ctx, func() error { return s.scenario.HasNoEvents(ctx, kind, name, reason, win) })
	})
}

// registerWorkloads registers the steps about controllers and nodes.
func registerWorkloads(sc registrar) {
	sc.Step(`^the cluster has (\d+) nodes?$`, setup(""), func(ctx context.Context, n string) error {
		count, err := strconv.Atoi(n)
		if err != nil {
			return err
		}
		return from(ctx).scenario.SetNodes(ctx, count)
	})
	sc.Step(`^I scale the (\w+) "([^"]*)" to (\d+)$`, workloadUpdate(), func(ctx context.Context, kind, name, n string) error {
		count, err := strconv.Atoi(n)
		if err != nil {
			return err
		}
		return from(ctx).scenario.Scale(ctx, kind, name, count)
	})
	sc.Step(`^I delete the ([A-Z]\w*) "([^"]*)"$`, setup(""), func(ctx context.Context, kind, name string) error {
		return from(ctx).scenario.Delete(ctx, kind, name)
	})
	sc.Step(`^I delete the pod "([^"]*)"$`, setup(""), func(ctx context.Context, name string) error {
		return from(ctx).scenario.DeletePod(ctx, name)
	})
	sc.Step(`^I trigger a rollout of the (\w+) "([^"]*)"$`, workloadUpdate(), func(ctx context.Context, kind, name string) error {
		return from(ctx).scenario.Rollout(ctx, kind, name)
	})
	sc.Step(`^the pods of the (\w+) "([^"]*)" should have been created in order$`, check("", rule.R2_6), func(ctx context.Context, kind, name string) error {
		return from(ctx).scenario.PodsCreatedInOrder(ctx, kind, name)
	})
	sc.Step(`^each simulated node should run one pod of the (\w+) "([^"]*)"$`, check("", rule.R2_6), func(ctx context.Context, kind, name string) error {
		return from(ctx).scenario.OnePodPerNode(ctx, kind, name)
	})
	sc.Step(`^the (\w+) "([^"]*)" should have (\d+) ready pods?$`, check(shows.admitted, rule.R2_6), func(ctx context.Context, kind, name, n string) error {
		count, err := strconv.Atoi(n)
		if err != nil {
			return err
		}
		_, err = from(ctx).scenario.WaitForPods(ctx, count, kind, name)
		return err
	})
	sc.Step(`^preset changes roll out to running workloads$`, setup(""), func(ctx context.Context) error {
		return from(ctx).scenario.EnableRollout(ctx, "default")
	})
	sc.Step(`^preset changes roll out to running workloads in the namespace "([^"]*)"$`, setup(""), func(ctx context.Context, ns string) error {
		return from(ctx).scenario.EnableRollout(ctx, ns)
	})
	sc.Step(`^the (\w+) "([^"]*)" should be restarted for the PodPreset "([^"]*)"$`, check(""), func(ctx context.Context, kind, name, preset string) error {
		return from(ctx).scenario.RestartedFor(ctx, kind, name, preset)
	})
	sc.Step(`^the (\w+) "([^"]*)" should stay as submitted`+forWindow, check(""), func(ctx context.Context, kind, name, window string) error {
		s := from(ctx)
		win, err := s.settle(window)
		if err != nil {
			return err
		}
		return s.idle(ctx, func() error { return s.scenario.StaysAsSubmitted(ctx, kind, name, win) })
	})
	sc.Step(`^the Job "([^"]*)" should complete$`, check(shows.admitted, rule.R2_6), func(ctx context.Context, name string) error {
		return from(ctx).scenario.JobCompletes(ctx, name)
	})
}

func createObjects(ctx context.Context, doc *godog.DocString) error {
	s := from(ctx)
	return s.scenario.Create(ctx, s.source(), doc.Content, "")
}

func createKind(ctx context.Context, kind string, doc *godog.DocString) error {
	s := from(ctx)
	return s.scenario.Create(ctx, s.source(), doc.Content, kind)
}

// unquote undoes the \" escapes a quoted step argument may hold.
func unquote(text string) string { return strings.ReplaceAll(text, `\"`, `"`) }

// tableRows reads a table whose first row is a header with exactly the
// given columns.
func tableRows(t *godog.Table, columns ...string) ([]map[string]string, error) {
	if t == nil || len(t.Rows) == 0 {
		return nil, fmt.Errorf("want a table with columns %s", strings.Join(columns, ", "))
	}
	header := make([]string, len(t.Rows[0].Cells))
	for i, c := range t.Rows[0].Cells {
		header[i] = c.Value
	}
	if strings.Join(header, ",") != strings.Join(columns, ",") {
		return nil, fmt.Errorf("table header is %q, want %q", strings.Join(header, " | "), strings.Join(columns, " | "))
	}
	var rows []map[string]string
	for _, r := range t.Rows[1:] {
		row := map[string]string{}
		for i, c := range r.Cells {
			row[columns[i]] = c.Value
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// registerEnvironment registers the steps about what containers see.
func registerEnvironment(sc registrar) {
	sees := func(exact bool) func(ctx context.Context, container, pod string, table *godog.Table) error {
		return func(ctx context.Context, container, pod string, table *godog.Table) error {
			rows, err := tableRows(table, "name", "value")
			if err != nil {
				return err
			}
			want := make([]scenario.EnvVar, len(rows))
			for i, r := range rows {
				want[i] = scenario.EnvVar{Name: r["name"], Value: r["value"]}
			}
			return from(ctx).scenario.SeesEnvironment(ctx, pod, container, want, exact)
		}
	}
	sc.Step(`^the container "([^"]*)" of pod "([^"]*)" should see the environment:$`, check(shows.content, rule.Injection...), sees(false))
	sc.Step(`^the container "([^"]*)" of pod "([^"]*)" should see exactly the environment:$`, check(shows.content, rule.Injection...), sees(true))
	sc.Step(`^the container "([^"]*)" of pod "([^"]*)" should not see the variables:$`, check(shows.content, rule.Selection...), func(ctx context.Context, container, pod string, table *godog.Table) error {
		rows, err := tableRows(table, "name")
		if err != nil {
			return err
		}
		names := make([]string, len(rows))
		for i, r := range rows {
			names[i] = r["name"]
		}
		return from(ctx).scenario.DoesNotSee(ctx, pod, container, names)
	})
	sc.Step(`^the container "([^"]*)" of pod "([^"]*)" should fail to start with "([^"]*)" and a message containing "(.*)"$`, check(shows.content, rule.Injection...), func(ctx context.Context, container, pod, reason, message string) error {
		return from(ctx).scenario.FailsToStart(ctx, pod, container, reason, unquote(message))
	})
	sc.Step(`^the pod "([^"]*)" should become ready$`, check(shows.content, rule.Injection...), func(ctx context.Context, pod string) error {
		return from(ctx).scenario.BecomesReady(ctx, pod)
	})
}
