package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/mutants"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/steps"
)

// ExitError carries a process exit status.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Main runs the command and is the one place that exits the process.
func Main() {
	// envtest logs a line or two through controller-runtime's global logger
	// as it starts; with no logger set, controller-runtime prints, half a
	// minute later, a warning with a stack trace into the middle of the
	// run's output. What the harness has to say about the control plane it
	// says itself, so the program (never the library) discards those.
	ctrllog.SetLogger(logr.Discard())
	err := Run(context.Background(), os.Stdout, os.Stderr, os.Args[1:])
	var exit ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		os.Exit(exit.Code)
	default:
		fmt.Fprintf(os.Stderr, "presetsim: %v\n", err)
		os.Exit(1)
	}
}

const usage = `usage: presetsim <command> [flags]

commands:
  run [flags] [feature files or folders]   run the feature suite (default: features)
  differential [flags] [features]          run the features offline and on envtest; report every difference
  apply -f FILE [-f FILE ...] [flags]      preview offline what presets do to pods and workloads
  up [--kubeconfig FILE]                   run a local cluster with presets active, for kubectl, until Ctrl-C
  bench [--pods N]                         measure start-up, per-scenario overhead, pod-create latency, merge rate
  serve --kubeconfig FILE [flags]          serve a module as a standalone TLS webhook (loopback by default)
  report compare [--out DIR] REPORT-DIR... rules × implementations, from several runs' --report-dir (Markdown, HTML)
  modules                                  list the in-process admission modules (the reference and mutant/*)
`

// Run is the command's entry; tests call it directly.
func Run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitError{Code: 2}
	}
	switch args[0] {
	case "run":
		return runSuite(ctx, stdout, stderr, args[1:])
	case "differential":
		return runDifferential(ctx, stdout, stderr, args[1:])
	case "bench":
		return bench(ctx, stdout, stderr, args[1:])
	case "serve":
		return serve(ctx, stdout, stderr, args[1:])
	case "up":
		return up(ctx, stdout, stderr, args[1:])
	case "apply":
		return apply(ctx, os.Stdin, stdout, stderr, args[1:])
	case "report":
		return reportCommand(stdout, stderr, args[1:])
	case "modules":
		fmt.Fprintln(stdout, strings.Join(modules().Names(), "\n"))
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}

// modules is the registry of in-process modules: the reference and the
// deliberately faulty mutants.
func modules() *harness.Modules {
	m := harness.NewModules()
	mutants.Register(m)
	mutants.RegisterExample(m)
	return m
}

func runSuite(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	module := fs.String("module", harness.ReferenceModule, "in-process admission module to test")
	format := fs.String("format", "pretty", "output format: pretty, progress, cucumber, junit")
	tags := fs.String("tags", "", "run only scenarios matching this tag expression, e.g. @R4.2")
	concurrency := fs.Int("concurrency", steps.DefaultConcurrency, "scenarios to run at once (@serial ones run alone)")
	backend := fs.String("backend", string(harness.Envtest), "where objects live: envtest (a real control plane), offline (in memory, no API server), cluster (an existing cluster, --kubeconfig) or kind (a kind cluster from make kind-image's node image)")
	var kind harness.KindOptions
	fs.StringVar(&kind.Name, "kind-name", "presetsim", "kind backend: the cluster's name; an existing cluster of that name is reused and left in place")
	fs.StringVar(&kind.Image, "kind-image", "", "kind backend: the node image; the newest presetsim.dev/kind-node image when empty")
	fs.BoolVar(&kind.Keep, "keep-cluster", false, "kind backend: leave the cluster in place at the end")
	kubeconfig := fs.String("kubeconfig", "", "the existing cluster's kubeconfig, where the implementation is installed (implies --backend cluster)")
	showSecrets := fs.Bool("show-secrets", false, "show values that come from Secrets in messages, instead of "+harness.Mask)
	ext := externalFlags(fs)
	profilePath := fs.String("profile", "", "profile (YAML) of the implementation under test; the canonical PodPreset when empty")
	reportDir := fs.String("report-dir", "", "write summary.json, summary.yaml, junit.xml, cucumber.json and report.html here")
	if err := fs.Parse(args); err != nil {
		return ExitError{Code: 2}
	}
	external, err := ext.module()
	if err != nil {
		fmt.Fprintf(stderr, "presetsim run: %v\n", err)
		return ExitError{Code: 2}
	}
	if *kubeconfig != "" {
		*backend = string(harness.Cluster)
	}
	var prof *profile.Profile
	if *profilePath != "" {
		if prof, err = profile.Load(*profilePath); err != nil {
			fmt.Fprintf(stderr, "presetsim run: %v\n", err)
			return ExitError{Code: 2}
		}
	}

	if *reportDir != "" {
		if err := os.MkdirAll(*reportDir, 0o755); err != nil {
			return err
		}
		if external != nil && len(external.Command) > 0 {
			external.LogFile = filepath.Join(*reportDir, "webhook.log")
		}
	}

	start := time.Now()
	interrupts := interrupt.Catch(ctx)
	defer interrupts.Release()
	var bin string
	if harness.Backend(*backend) == harness.Envtest || *backend == "" {
		if bin, err = binaries(interrupts.Context(), stderr); err != nil {
			return err
		}
	}
	w, err := harness.Start(interrupts.Context(), harness.Options{BinDir: bin, Module: *module, Modules: modules(), External: external, Backend: harness.Backend(*backend),
		Kubeconfig: *kubeconfig, Kind: kind, Profile: prof, ShowSecrets: *showSecrets, Progress: stderr})
	if err != nil {
		if code := interrupts.Code(); code != 0 {
			return ExitError{Code: code}
		}
		return err
	}
	interrupts.OnSignal(w.Stop)
	defer func() {
		if err := w.Stop(); err != nil {
			fmt.Fprintf(stderr, "error while stopping the control plane: %v\n", err)
		}
	}()

	formats := *format
	if *reportDir != "" {
		formats += ",cucumber:" + filepath.Join(*reportDir, "cucumber.json")
	}
	suiteStart := time.Now()
	status, timings := steps.Run(w, steps.SuiteOptions{
		Paths: fs.Args(), Format: formats, Tags: *tags, Concurrency: *concurrency, Output: stdout,
	})
	suiteTime := time.Since(suiteStart)
	if *reportDir != "" {
		implementation := *module
		switch {
		case external != nil:
			implementation = external.URL
		case w.Backend == harness.Cluster:
			implementation = "installed in " + w.Config.Host
		}
		if prof != nil && prof.Spec.Implementation != "" {
			implementation = fmt.Sprintf("%s %s (%s)", prof.Spec.Implementation, prof.Spec.Version, implementation)
		}
		if err := writeReports(*reportDir, implementation, w, timings.List()); err != nil {
			return err
		}
		kept := "summary.json, summary.yaml, junit.xml, cucumber.json, report.html"
		if external != nil && external.LogFile != "" {
			kept += ", webhook.log (the webhook's output)"
		}
		fmt.Fprintf(stderr, "reports in %s: %s\n", *reportDir, kept)
	}

	fmt.Fprintf(stderr, "\n%s start: %s\n", w.Backend, w.Started.Round(time.Millisecond))
	fmt.Fprintf(stderr, "suite:               %s for %d scenarios (median %s per scenario)\n",
		suiteTime.Round(time.Millisecond), len(timings.List()), timings.Median().Round(time.Millisecond))
	for _, t := range timings.List() {
		mark := map[string]string{"passed": "ok  ", "failed": "FAIL", "unsupported": "n/a ", "not claimed": "n/c ",
			"not applicable": "n/a ", steps.CheckDeclared: "diff"}[t.Outcome()]
		fmt.Fprintf(stderr, "  %s %8s  %s\n", mark, t.Duration.Round(time.Millisecond), t.Scenario)
		if t.Unsupported != "" {
			fmt.Fprintf(stderr, "                 not run on the %s backend: %s\n", w.Backend, t.Unsupported)
		}
		if t.NotApplicable != "" {
			fmt.Fprintf(stderr, "                 not applicable: %s\n", t.NotApplicable)
		}
		if c := t.FailedCheck(); c != nil {
			fmt.Fprintf(stderr, "                 failed check (line %d): %s → %s\n", c.Line, c.Step, strings.Join(c.Rules, ", "))
		}
		if c := t.Declared(); c != nil {
			fmt.Fprintf(stderr, "                 differs as declared (line %d): %s → %s: %s\n", c.Line, c.Step, strings.Join(c.Rules, ", "), c.Reason)
		}
		for _, c := range t.Checks {
			if c.Outcome == steps.CheckNotClaimed {
				fmt.Fprintf(stderr, "                 not claimed (line %d): %s: %s\n", c.Line, c.Step, c.Reason)
			}
		}
		for _, n := range t.Notes {
			fmt.Fprintf(stderr, "                 note: %s\n", n)
		}
	}
	counts := map[string]int{}
	for _, t := range timings.List() {
		counts[t.Outcome()]++
	}
	fmt.Fprintf(stderr, "outcomes:            %d passed, %d failed, %d differ as declared, %d unsupported on the %s backend, %d not claimed, %d not applicable\n",
		counts["passed"], counts["failed"], counts[steps.CheckDeclared], counts["unsupported"], w.Backend, counts["not claimed"], counts["not applicable"])
	if rules := failedRules(timings.List()); len(rules) > 0 {
		fmt.Fprintf(stderr, "failed rules:        %s\n", strings.Join(rules, ", "))
	}
	fmt.Fprintf(stderr, "total:               %s\n", time.Since(start).Round(time.Millisecond))
	if output := w.ModuleOutput(); status != 0 && output != "" {
		fmt.Fprintf(stderr, "\n%s\n", output)
	}
	if status != 0 {
		return ExitError{Code: status}
	}
	return nil
}

// failedRules lists the rules the failed scenarios' failing checks are
// credited to, with how many scenarios failed each: "R2.4 (1 scenario)".
func failedRules(timings []steps.Timing) []string {
	count := map[string]int{}
	for _, t := range timings {
		for _, rule := range t.FailedRules() {
			count[rule]++
		}
	}
	var out []string
	for _, rule := range slices.Sorted(maps.Keys(count)) {
		noun := "scenarios"
		if count[rule] == 1 {
			noun = "scenario"
		}
		out = append(out, fmt.Sprintf("%s (%d %s)", rule, count[rule], noun))
	}
	return out
}
