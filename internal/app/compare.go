package app

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/report"
	"presetsim.dev/presetsim/internal/report/compare"
)

// newReportCommand is `presetsim report`, whose one subcommand is compare.
func newReportCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "work with the reports of earlier runs (--report-dir)",
		Args:  cli.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cli.UsageError(cmd, "report needs a subcommand") },
	}
	cmd.AddCommand(newCompareCommand(stdout, stderr))
	return cmd
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
