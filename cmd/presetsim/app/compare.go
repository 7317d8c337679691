package app

import (
	"flag"
	"fmt"
	"io"
	"os"

	"presetsim.dev/presetsim/report"
	"presetsim.dev/presetsim/report/compare"
)

// reportCommand runs `presetsim report compare`, the one report subcommand.
func reportCommand(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 || args[0] != "compare" {
		fmt.Fprint(stderr, "usage: presetsim report compare [--out DIR] [-o markdown|html] REPORT-DIR...\n")
		return ExitError{Code: 2}
	}
	fs := flag.NewFlagSet("report compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write compare.md and compare.html into this folder instead of printing")
	format := fs.String("o", "markdown", "what to print when --out is not given: markdown or html")
	if err := fs.Parse(args[1:]); err != nil {
		return ExitError{Code: 2}
	}
	if *format != "markdown" && *format != "html" {
		fmt.Fprintf(stderr, "presetsim report compare: -o must be markdown or html, not %q\n", *format)
		return ExitError{Code: 2}
	}
	runs, err := compare.Read(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "presetsim report compare: %v\n", err)
		return ExitError{Code: 2}
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
