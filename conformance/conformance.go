package conformance

import (
	"context"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
	"presetsim.dev/presetsim/steps"
)

// Options configure a conformance run. Backend is required; everything
// else has a default.
type Options struct {
	// Backend is where objects live: envtest.New, offline.New, kind.New or
	// cluster.New (packages under presetsim.dev/presetsim/backends).
	Backend backend.Backend
	// Implementation is what is tested: Webhook, Module, Policy,
	// Installed; Reference when nil.
	Implementation implementation.Implementation
	// Profile describes how the implementation differs from the canonical
	// PodPreset (profile.Load, profile.Shipped); the implementation's own
	// (the policy's), else the canonical PodPreset, when nil.
	Profile *profile.Profile
	// Features holds the feature files; the suite presetsim carries
	// (presetsim.Suite) when nil.
	Features fs.FS
	// Paths are files or folders in Features; the whole suite when empty.
	Paths []string
	// Tags filters scenarios by a tag expression ("@R4.2 && ~@slow").
	Tags string
	// ReportDir, when set, receives summary.json and summary.yaml (an
	// outcome.Report), junit.xml and report.html.
	ReportDir string
	// Concurrency is how many scenarios run at once;
	// steps.DefaultConcurrency when zero.
	Concurrency int
	// Timeouts bound waiting steps; the backend's, when zero.
	Timeouts harness.Timeouts
	// Unsubscribed is what becomes of what the implementation does with
	// requests its registration does not send it: findings in the report
	// (backend.UnsubscribedReport, the default), or failures
	// (backend.UnsubscribedFail).
	Unsubscribed backend.Unsubscribed
}

// Option sets one field of Options.
type Option func(*Options)

// WithBackend chooses where objects live.
func WithBackend(b backend.Backend) Option { return func(o *Options) { o.Backend = b } }

// WithImplementation chooses what is tested.
func WithImplementation(impl implementation.Implementation) Option {
	return func(o *Options) { o.Implementation = impl }
}

// WithProfile declares how the implementation differs from the canonical
// PodPreset.
func WithProfile(p *profile.Profile) Option { return func(o *Options) { o.Profile = p } }

// WithFeatures runs the feature files at paths (files or folders) of fsys
// (os.DirFS("."), an embed.FS) instead of the suite presetsim carries.
func WithFeatures(fsys fs.FS, paths ...string) Option {
	return func(o *Options) { o.Features, o.Paths = fsys, paths }
}

// WithTags runs the scenarios a tag expression selects ("@R4.2 && ~@slow").
func WithTags(expr string) Option { return func(o *Options) { o.Tags = expr } }

// WithReportDir writes the run's reports into dir.
func WithReportDir(dir string) Option { return func(o *Options) { o.ReportDir = dir } }

// WithUnsubscribed says what becomes of what the implementation does with
// requests its registration does not send it.
func WithUnsubscribed(u backend.Unsubscribed) Option { return func(o *Options) { o.Unsubscribed = u } }

// WithConcurrency runs n scenarios at once.
func WithConcurrency(n int) Option { return func(o *Options) { o.Concurrency = n } }

// Run runs the conformance suite with the options, as RunWithOptions does.
func Run(t *testing.T, opts ...Option) *outcome.Report {
	t.Helper()
	var o Options
	for _, opt := range opts {
		opt(&o)
	}
	return RunWithOptions(t, o)
}

// RunWithOptions starts the backend and the implementation, runs the
// features and stops everything, then reports each scenario as a subtest
// of t: a scenario that failed fails its subtest with the failing step,
// its line and the rules it is credited to; one that did not run (the
// backend cannot, the profile does not claim it, it does not apply) is
// skipped with its reason; one that differs as the profile declares
// passes, and says so. It returns the run's report, nil when the run
// could not start (t has failed then).
func RunWithOptions(t *testing.T, o Options) *outcome.Report {
	t.Helper()
	if o.Backend == nil {
		t.Fatal("conformance: no backend: WithBackend(envtest.New(envtest.Options{})), or offline.New(), kind.New(…), cluster.New(…)")
		return nil
	}
	if o.Implementation == nil {
		ref, err := Reference()
		if err != nil {
			t.Fatalf("conformance: %v", err)
			return nil
		}
		o.Implementation = ref
	}
	features, paths := o.Features, o.Paths
	if features == nil {
		features = presetsim.Suite
		if len(paths) == 0 {
			paths = []string{presetsim.SuitePath}
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	w, err := harness.Start(context.Background(), harness.Options{Backend: o.Backend, Implementation: o.Implementation,
		Profile: o.Profile, Timeouts: o.Timeouts, Progress: logWriter{t}, Unsubscribed: o.Unsubscribed})
	if err != nil {
		t.Fatalf("conformance: unable to start %s on the %s backend: %v", o.Implementation.Name(), o.Backend.Name(), err)
		return nil
	}
	_, timings := steps.Run(w, steps.SuiteOptions{FS: features, Paths: paths, Tags: o.Tags, Concurrency: o.Concurrency,
		Format: "progress", Output: io.Discard})
	if err := w.Stop(); err != nil {
		t.Errorf("conformance: stopping the %s backend: %v", o.Backend.Name(), err)
	}
	scenarios := timings.List()
	r := report.OfRun(o.Implementation.Name(), w, scenarios)
	if o.ReportDir != "" {
		if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
			t.Errorf("conformance: %v", err)
		} else if err := report.Write(o.ReportDir, r); err != nil {
			t.Errorf("conformance: writing the reports: %v", err)
		}
	}
	if len(scenarios) == 0 {
		t.Errorf("conformance: no scenario ran (paths %v, tags %q)", paths, o.Tags)
	}
	for _, s := range scenarios {
		t.Run(s.Scenario, func(t *testing.T) { verdict(t, s) })
	}
	return r
}

// verdict reports one scenario's outcome on its subtest.
func verdict(t *testing.T, s outcome.Scenario) {
	switch o := s.Outcome(); o {
	case outcome.Failed:
		if c := s.FailedCheck(); c != nil {
			t.Errorf("%s (line %d) → %s: %v", c.Step, c.Line, rule.Join(c.Rules, ", "), c.Err)
			return
		}
		t.Errorf("failed: %v", s.Err)
	case outcome.Differs:
		if c := s.Declared(); c != nil {
			t.Logf("differs as the profile declares: %s: %s", c.Step, c.Reason)
		}
	case outcome.Unsupported:
		t.Skipf("the backend cannot run it: %s", s.Unsupported)
	case outcome.NotClaimed:
		t.Skipf("needs @%s, which the profile does not claim", s.NotClaimed)
	case outcome.NotApplicable:
		t.Skipf("does not apply: %s", s.NotApplicable)
	case outcome.Passed:
	default:
		t.Errorf("an outcome this package does not know: %s", o)
	}
	for _, f := range s.Findings {
		t.Logf("finding (not a failure: its registration does not send the request): %s", f)
	}
}

// logWriter writes the harness's start-up lines to the test's log.
type logWriter struct{ t *testing.T }

func (l logWriter) Write(p []byte) (int, error) {
	l.t.Helper()
	l.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
