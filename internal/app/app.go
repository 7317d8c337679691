package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"presetsim.dev/presetsim/internal/app/bench"
	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/app/live"
	"presetsim.dev/presetsim/internal/app/policy"
	"presetsim.dev/presetsim/internal/app/serve"
	"presetsim.dev/presetsim/internal/app/watch"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/internal/suitecheck"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/rule"
	"presetsim.dev/presetsim/steps"
)

// Main runs the command and is the one place that exits the process.
func Main() {
	// envtest logs a line or two through controller-runtime's global logger
	// as it starts; with no logger set, controller-runtime prints, half a
	// minute later, a warning with a stack trace into the middle of the
	// run's output. What the harness has to say about the control plane it
	// says itself, so the program (never the library) discards those.
	ctrllog.SetLogger(logr.Discard())
	// The Kubernetes libraries log through klog to stderr: client-go's
	// "Unexpected error when reading response body" for a request a run
	// cancelled on purpose, a policy plug-in's "refreshing policies". The
	// run says what matters itself; those lines (errors too, which klog's
	// flags would still print) go to libraries.log in a run's report
	// folder, and reach the console only when PRESETSIM_KLOG is set (to
	// anything).
	if os.Getenv("PRESETSIM_KLOG") == "" {
		klog.SetLogger(libraryLog.logger())
	}
	err := Run(context.Background(), os.Stdout, os.Stderr, os.Args[1:])
	var exit cli.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		os.Exit(exit.Code)
	default:
		fmt.Fprintf(os.Stderr, "presetsim: %v\n", err)
		os.Exit(1)
	}
}

// Run is the command's entry; tests call it directly. Its error is an
// ExitError for a usage error (status 2) or a run's own status; any other
// error means status 1.
func Run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	root := newRootCommand(os.Stdin, stdout, stderr)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// newRootCommand is the presetsim command and its subcommands.
func newRootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "presetsim",
		Short: "the PodPreset reference implementation and its conformance suite",
		Long: `presetsim runs a BDD conformance suite (features/) against an implementation of PodPreset:
the reference in this repository, a deliberately faulty mutant, someone else's webhook, or
one installed on a cluster; and previews offline what presets do to pods.`,
		Example: `  presetsim run                                   # the suite against the reference, on envtest
  presetsim apply -f presets.yaml -f pod.yaml -o diff
  presetsim completion bash > /etc/bash_completion.d/presetsim`,
		SilenceErrors: true, // Main prints them
		SilenceUsage:  true,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cli.UsageError(cmd, "a command is needed") },
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return cli.UsageError(cmd, err.Error()) })
	modulesCmd := &cobra.Command{
		Use:   "modules",
		Short: "list the in-process admission modules (the reference and mutant/*)",
		Args:  cli.NoArgs,
		Run:   func(*cobra.Command, []string) { fmt.Fprintln(stdout, strings.Join(mutants.Registry().Names(), "\n")) },
	}
	root.AddCommand(
		newRunCommand(stdin, stdout, stderr),
		newDifferentialCommand(stdout, stderr),
		newFuzzCommand(stdout, stderr),
		newApplyCommand(stdin, stdout, stderr),
		policy.NewCommand(stdin, stdout, stderr),
		live.NewExplainCommand(stdout, stderr),
		live.NewAuditCommand(stdout, stderr),
		newUpCommand(stdout, stderr),
		bench.NewCommand(stdout, stderr),
		serve.NewCommand(stdout, stderr),
		newReportCommand(stdout, stderr),
		newRulesCommand(stdout),
		newFeaturesCommand(stdout),
		newToolsCommand(stdout, stderr),
		modulesCmd,
		newVersionCommand(stdout),
	)
	completeValues(root)
	return root
}

func newRunCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run [flags] [feature files or folders]",
		Short: "run the feature suite (default: the one built in) against an implementation",
		Long: `Runs the feature suite against an implementation of PodPreset and prints each scenario's
outcome: passed, failed (with the failing check and the rule it checks), differs as the
profile declares, unsupported on the backend, not claimed or not applicable.

The implementation is an in-process module (--module, the reference by default), an external
webhook (--webhook-url, optionally started by --webhook-command), the presets compiled into
MutatingAdmissionPolicies (--implementation policy), or one already installed on a cluster
(--kubeconfig). Objects live on a real control plane built from source (envtest,
the default), in memory (--backend offline), on a kind cluster or on an existing cluster.

With no path, the curated suite built into this binary runs (its files are named
features/*.feature; presetsim features export DIR writes them out).

Mistakes in the flags — an unknown format, a tag expression godog cannot read, a path that does
not exist, a selection with no scenario — are usage errors. Mistakes in the feature files — an
undefined step (with the nearest defined one), YAML that does not parse, an unknown field (with
a did-you-mean) in the objects a step creates — are reported with their file and line before
anything starts, and judge no rule.

Every run says what it checked ("checked: 31 of 34 rules; not checked: …"), each rule not
checked with why: not selected, unsupported on the backend, declared away, its checks partly
or wholly not claimed, not applicable. --require makes that a gate.

Exit status: 0 when every scenario passed or differs as declared, 1 when one failed (or the
clean-up did), 2 on a usage error, 3 when nothing failed but the run did not check what
--require asks, 4 for mistakes in the feature files, 130 or 143 when
interrupted, 124 when --timeout was reached. Interrupted or timed out, --report-dir holds the
scenarios that finished and says how many did not run.`,
		Example: `  presetsim run
  presetsim run --tags @R4.2 features/conflict.feature
  presetsim run --backend offline --module mutant/ignores-exclude
  presetsim run --implementation policy
  presetsim run --watch features/simple.feature
  presetsim run --webhook-url https://127.0.0.1:9443/mutate --webhook-ca ca.pem \
      --webhook-command './my-webhook --kubeconfig {kubeconfig}' --profile redhat-cop-podpreset-webhook
  presetsim run --kubeconfig ~/.kube/config --report-dir reports/prod`,
	}
	fs := cmd.Flags()
	t := targetFlags(fs)
	fs.Lookup("report-dir").Usage = "write summary.json, summary.yaml, junit.xml, cucumber.json and report.html here"
	format := fs.String("format", "progress", "output format: progress (a character per step; the summary follows on stderr), pretty (godog's, every step with where it is defined; one scenario at a time unless --concurrency says otherwise, so that each stands under its own Feature), cucumber, junit")
	tags := fs.String("tags", "", "run only scenarios matching this tag expression, e.g. @R4.2")
	concurrency := fs.Int("concurrency", steps.DefaultConcurrency, "scenarios to run at once (@serial ones run alone)")
	verbose := fs.BoolP("verbose", "v", false, "list every scenario with its outcome, not only those that did not pass")
	quiet := fs.BoolP("quiet", "q", false, "print the counts alone, not the scenarios that did not pass")
	shard := fs.String("shard", "", "run only shard I of N (I/N) of the selected scenarios: the k-th scenario in file order goes to shard k mod N + 1, the same on every machine; presetsim report merge joins the shards' --report-dir")
	verdictMap := fs.String("summary-configmap", "", "write the report's summary.json and verdict into this ConfigMap, [NAMESPACE/]NAME (the pod's namespace when run in one), for kubectl to read: deploy/conformance")
	timeout := fs.Duration("timeout", 0, "stop the whole run after this long, the control plane's start included, as an interrupt does: --report-dir holds the scenarios that finished (exit status 124)")
	require := fs.String("require", "", "what the run must have checked, or it exits 3: all (every rule of the specification, fully), claimed (every rule but those the profile does not claim or that do not apply), rule ids (R2.1,R4.2), or a share of the rules (80%); a rule declared away (a propagation window longer than the run waits) or whose checks were partly not claimed counts as not checked. Without it the run still says what it checked")
	watchFlag := fs.Bool("watch", false, "keep the control plane and the implementation up; run a feature file's scenarios again when it is saved (all on r and Enter) and print what changed; Ctrl-C stops")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *timeout < 0 {
			return cli.UsageError(cmd, fmt.Sprintf("--timeout must not be negative, not %s", *timeout))
		}
		t.timeout = *timeout
		var required *outcome.Requirement
		if *require != "" {
			req, err := outcome.ParseRequirement(*require)
			if err != nil {
				return cli.UsageError(cmd, "--require "+err.Error())
			}
			required = &req
		}
		if *watchFlag && len(args) == 0 {
			return cli.UsageError(cmd, "--watch reruns feature files when they are saved: name them (presetsim features export DIR writes the built-in suite out)")
		}
		if !fs.Changed("concurrency") && slices.Contains(strings.Split(*format, ","), "pretty") {
			// godog's pretty formatter prints concurrent scenarios under
			// whichever Feature header came last.
			*concurrency = 1
		}
		paths, fsys := suiteSource(args)
		// Checked before the control plane starts, which takes seconds.
		if err := suitecheck.Check(suitecheck.Options{Paths: paths, FS: fsys, Format: *format, Tags: *tags, Concurrency: *concurrency, Steps: steps.Expressions(), Manifests: steps.ManifestExpressions(), Inputs: steps.InputExpressions()}); err != nil {
			return cli.SuiteError(cmd, err)
		}
		if *shard != "" {
			if *watchFlag {
				return cli.UsageError(cmd, "--shard and --watch do not go together")
			}
			i, n, err := parseShard(*shard)
			if err != nil {
				return cli.UsageError(cmd, err.Error())
			}
			mine, err := suitecheck.Shard(fsys, paths, *tags, i, n)
			if err != nil {
				return cli.UsageError(cmd, "--shard: "+err.Error())
			}
			if len(mine) == 0 {
				fmt.Fprintf(stderr, "shard %s holds no scenario: there are fewer scenarios than shards\n", *shard)
				return nil
			}
			paths = mine
		}
		st, err := t.start(cmd.Context(), cmd, stderr)
		if err != nil {
			return err
		}
		defer st.stop(stderr)
		w, start, reportDir := st.world, st.began, t.reportDir

		if *watchFlag {
			return watch.Loop(st.interrupts.Context(), w, watch.Options{Paths: args, Tags: *tags, Concurrency: *concurrency, Out: stdout, Keys: stdin})
		}
		api, hasAPI := w.API()
		if *verdictMap != "" && !hasAPI {
			return cli.UsageError(cmd, fmt.Sprintf("--summary-configmap needs a backend with an API server, not %s", w.Backend))
		}
		var cucumber *steps.Cucumber
		if *reportDir != "" {
			cucumber = steps.NewCucumber()
		}
		finished := steps.NewTimings()
		if *reportDir != "" {
			// Interrupted, the run writes what finished before it stops.
			st.interrupts.OnSignal(func() error {
				list, cucumberJSON, cerr := finished.Snapshot(cucumber)
				partial := report.OfRun(st.implementationName(), w, list)
				why := fmt.Sprintf("exit status %d: the %d scenarios that finished; the others did not run", st.interrupts.Code(), len(partial.Scenarios))
				if total, err := suitecheck.CountIn(fsys, paths, *tags); err == nil && total >= len(partial.Scenarios) {
					why = fmt.Sprintf("exit status %d: %d scenarios finished, %d of the %d selected did not run", st.interrupts.Code(), len(partial.Scenarios), total-len(partial.Scenarios), total)
				}
				partial.SetInterrupted(why)
				err := w.Stop()
				if cerr == nil {
					cerr = os.WriteFile(filepath.Join(*reportDir, "cucumber.json"), cucumberJSON, 0o644)
				}
				if werr := errors.Join(report.Write(*reportDir, partial), cerr); werr != nil {
					return errors.Join(err, werr)
				}
				fmt.Fprintf(stderr, "interrupted: reports in %s hold the %d scenarios that finished: %s\n",
					*reportDir, len(partial.Scenarios), strings.Join(reportFiles(*reportDir), ", "))
				return err
			})
		}
		suiteStart := time.Now()
		status, timings := steps.Run(w, steps.SuiteOptions{
			Paths: paths, FS: fsys, Format: *format, Tags: *tags, Concurrency: *concurrency, Output: stdout, Timings: finished, Cucumber: cucumber,
		})
		suiteTime := time.Since(suiteStart)
		// Interrupted: the signal's handler stops the World, writes the
		// reports of the scenarios that finished (with --report-dir) and
		// exits with the signal's code; a scenario the signal cut off is
		// not reported, nor is the status it makes the exit code.
		if code := st.interrupts.Code(); code != 0 {
			return cli.ExitError{Code: code}
		}
		summary := report.OfRun(st.implementationName(), w, timings.List())
		if *verdictMap != "" {
			if err := publishVerdict(cmd.Context(), api.Client, *verdictMap, summary); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "verdict in ConfigMap %s\n", *verdictMap)
		}

		fmt.Fprintf(stderr, "\n%s start: %s\n", w.Backend, w.Started.Round(time.Millisecond))
		fmt.Fprintf(stderr, "suite:               %s for %d scenarios (median %s per scenario)\n",
			suiteTime.Round(time.Millisecond), len(timings.List()), timings.Median().Round(time.Millisecond))
		counts := printOutcomes(stderr, timings.List(), string(w.Backend), verbosity(*verbose, *quiet))
		fmt.Fprintf(stderr, "outcomes:            %s (on the %s backend)\n", counts, w.Backend)
		if rules := failedRules(timings.List()); len(rules) > 0 {
			fmt.Fprintf(stderr, "failed rules:        %s\n", strings.Join(rules, ", "))
		}
		printFindings(stderr, timings.List(), verbosity(*verbose, *quiet))
		fmt.Fprintf(stderr, "checked:             %s\n", summary.Coverage.Line())
		unmet := ""
		if required != nil {
			if unmet = required.Unmet(summary.Coverage); unmet != "" {
				fmt.Fprintf(stderr, "require:             --require %s is not met: %s\n", *require, unmet)
			}
		}
		if n, median, longest := w.Propagation(); n > 0 {
			fmt.Fprintf(stderr, "propagation:         presets shown %s after their creation (median of %d), %s at most; %s allowed (R6.1)\n",
				median.Round(time.Millisecond), n, longest.Round(time.Millisecond), w.Profile.Propagation())
		}
		fmt.Fprintf(stderr, "total:               %s\n", time.Since(start).Round(time.Millisecond))
		if output := w.ModuleOutput(); status != 0 && output != "" {
			fmt.Fprintf(stderr, "\n%s\n", output)
		}
		// The reports follow the clean-up, so that they say what it took
		// and whether the run left anything behind.
		took, stopErr := st.stop(stderr)
		if *reportDir != "" {
			summary.Timing = outcome.NewTiming(w.Started, suiteTime, took, stopErr)
			if err := errors.Join(report.Write(*reportDir, summary), writeCucumber(*reportDir, cucumber)); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "reports in %s: %s\n", *reportDir, strings.Join(reportFiles(*reportDir), ", "))
		}
		if status != 0 {
			return cli.ExitError{Code: status}
		}
		if unmet != "" {
			return cli.ExitError{Code: RequireUnmetCode}
		}
		return cleanUpExit(stopErr)
	}
	return cmd
}

// RequireUnmetCode is the exit status of a run that did not check what
// --require asks for, though nothing it checked failed.
const RequireUnmetCode = 3

// failedRules lists the rules the failed scenarios' failing checks are
// credited to, with how many scenarios failed each: "R2.4 (1 scenario)".
func failedRules(timings []outcome.Scenario) []string {
	count := map[rule.ID]int{}
	for _, t := range timings {
		for _, id := range t.FailedRules() {
			count[id]++
		}
	}
	var out []string
	for _, id := range slices.Sorted(maps.Keys(count)) {
		noun := "scenarios"
		if count[id] == 1 {
			noun = "scenario"
		}
		out = append(out, fmt.Sprintf("%s (%d %s)", id, count[id], noun))
	}
	return out
}

// parseShard reads --shard I/N, or job/N in a pod of an Indexed Job: I is
// then the pod's completion index, JOB_COMPLETION_INDEX (from 0), plus one.
func parseShard(s string) (i, n int, err error) {
	if count, ok := strings.CutPrefix(s, "job/"); ok {
		index := os.Getenv("JOB_COMPLETION_INDEX")
		k, err := strconv.Atoi(index)
		if err != nil || k < 0 {
			return 0, 0, fmt.Errorf("--shard %s takes the shard from JOB_COMPLETION_INDEX, the completion index of an Indexed Job's pod, which is %q here", s, index)
		}
		s = fmt.Sprintf("%d/%s", k+1, count)
	}
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || fmt.Sprintf("%d/%d", i, n) != s || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard wants I/N with 1 ≤ I ≤ N (2/3), not %q", s)
	}
	return i, n, nil
}

// reportFiles lists the files of a report folder: the reports first, then
// what else the run kept there (an external webhook's output).
func reportFiles(dir string) []string {
	reports := []string{"summary.json", "summary.yaml", "junit.xml", "cucumber.json", "report.html"}
	var files, others []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		switch {
		case e.IsDir():
		case slices.Contains(reports, e.Name()):
			files = append(files, e.Name())
		default:
			others = append(others, e.Name())
		}
	}
	slices.SortFunc(files, func(a, b string) int { return slices.Index(reports, a) - slices.Index(reports, b) })
	return append(files, others...)
}

// writeCucumber writes the run's Cucumber JSON report as cucumber.json in
// dir.
func writeCucumber(dir string, c *steps.Cucumber) error {
	f, err := os.Create(filepath.Join(dir, "cucumber.json"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = c.Write(w)
	return errors.Join(err, w.Flush(), f.Close())
}

// indent prefixes every line of text but the empty ones.
func indent(text, prefix string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// where is a check's place: FILE:LINE, or Where's words for the model's
// check after the last step.
func where(t outcome.Scenario, c *outcome.Check) string {
	file, _, ok := strings.Cut(t.Scenario, ": ")
	if c.Line == 0 || !ok {
		return c.Where()
	}
	return fmt.Sprintf("%s:%d", file, c.Line)
}
