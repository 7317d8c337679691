package app

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/internal/report/compare"
	"presetsim.dev/presetsim/outcome"
)

// newReportCommand is `presetsim report`: compare and merge.
func newReportCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "work with the reports of earlier runs (--report-dir)",
		Args:  cli.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cli.UsageError(cmd, "report needs a subcommand") },
	}
	cmd.AddCommand(newCompareCommand(stdout, stderr), newMergeCommand(stderr), newVerdictCommand(stdout, stderr))
	return cmd
}

// newMergeCommand is `presetsim report merge`.
func newMergeCommand(stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "merge --out DIR REPORT-DIR...",
		Short: "join the reports of a run's shards (run --shard I/N) into the run's report",
		Long: `Reads the summary.json of each shard's report folder (presetsim run --shard I/N --report-dir)
and writes the report of the whole run into --out: summary.json, summary.yaml, junit.xml and
report.html, each rule's outcome decided again from the scenarios of every shard. The shards must
be of one implementation, version and backend, and no scenario may be in two. The exit status is
the run's: 0 when no scenario failed, 1 otherwise.`,
		Example: `  presetsim run --shard 1/3 --report-dir reports/1
  presetsim run --shard 2/3 --report-dir reports/2
  presetsim run --shard 3/3 --report-dir reports/3
  presetsim report merge --out reports/all reports/1 reports/2 reports/3`,
		Args: cli.AtLeastOneArg,
	}
	out := cmd.Flags().String("out", "", "write the merged report into this folder (required)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *out == "" {
			return cli.UsageError(cmd, "--out is required: the folder to write the merged report into")
		}
		runs, err := compare.Read(args)
		if err != nil {
			fmt.Fprintf(stderr, "presetsim report merge: %v\n", err)
			return cli.ExitError{Code: 2}
		}
		summaries := make([]*outcome.Report, len(runs))
		for i, r := range runs {
			summaries[i] = r.Summary
		}
		merged, err := report.Merge(summaries)
		if err != nil {
			fmt.Fprintf(stderr, "presetsim report merge: %v\n", err)
			return cli.ExitError{Code: 2}
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		if err := report.Write(*out, merged); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%d shards merged in %s: %d scenarios (%s)\n", len(runs), *out, len(merged.Scenarios), merged.Totals)
		if !merged.Passed {
			return cli.ExitError{Code: 1}
		}
		return nil
	}
	return cmd
}

// newVerdictCommand is `presetsim report verdict`.
func newVerdictCommand(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "verdict REPORT-DIR",
		Short: "print what a run decided (totals, each rule's and each scenario's outcome), without its timings",
		Long: `Reads the summary.json of a report folder (run --report-dir, report merge --out) and prints
the run's verdict: what was tested on which backend, the totals, each rule's outcome and each
scenario's, a line each, with no durations — so that two runs can be compared with diff, as
make test-kind compares the in-cluster run with its shards merged. A run that did not finish
(interrupted, timed out) says so ("finished: false") and exits 1.`,
		Example: `  diff <(presetsim report verdict reports/whole) <(presetsim report verdict reports/merged)`,
		Args:    cli.OneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := compare.Read(args)
			if err != nil {
				fmt.Fprintf(stderr, "presetsim report verdict: %v\n", err)
				return cli.ExitError{Code: 2}
			}
			if err := report.WriteVerdict(stdout, runs[0].Summary); err != nil {
				return err
			}
			if s := runs[0].Summary; s.Interrupted != "" {
				fmt.Fprintf(stderr, "presetsim report verdict: the run did not finish (%s)\n", s.Interrupted)
				return cli.ExitError{Code: 1}
			}
			return nil
		},
	}
}

// newCompareCommand is `presetsim report compare`.
func newCompareCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare [--out DIR] [-o markdown|html] REPORT-DIR...",
		Short: "rules × implementations, from several runs' --report-dir (Markdown, HTML)",
		Long: `Reads the summary.json of each report folder (written by presetsim run --report-dir) and
prints one matrix: a row per rule of the specification, a column per implementation, each cell
passed, failed, differs as declared, not claimed or not applicable; below it, every failure's
failing check and every declared difference.`,
		Example: `  presetsim run --report-dir reports/reference
  presetsim run --module kubernetes-1.19 --profile profiles/kubernetes-1.19.yaml --report-dir reports/1.19
  presetsim report compare reports/reference reports/1.19
  presetsim report compare --out reports/compare reports/*`,
		Args: cli.AtLeastOneArg,
	}
	fs := cmd.Flags()
	out := fs.String("out", "", "write compare.md and compare.html into this folder instead of printing")
	format := fs.StringP("output", "o", "markdown", "what to print when --out is not given: markdown or html")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *format != "markdown" && *format != "html" {
			return cli.UsageError(cmd, fmt.Sprintf("-o must be markdown or html, not %q", *format))
		}
		runs, err := compare.Read(args)
		if err != nil {
			fmt.Fprintf(stderr, "presetsim report compare: %v\n", err)
			return cli.ExitError{Code: 2}
		}
		m := compare.Build(runs)
		m.Base = *out
		if *out == "" {
			if *format == "html" {
				return m.WriteHTML(stdout)
			}
			return m.WriteMarkdown(stdout)
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
		if err := report.WriteFiles(*out, m.Files()); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%d runs compared in %s: compare.md, compare.html\n", len(runs), *out)
		return nil
	}
	return cmd
}
