package app

import (
	"context"
	"flag"
	"fmt"
	"io"

	"presetsim.dev/presetsim/differential"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/interrupt"
)

// runDifferential runs the features on the offline and the envtest backends
// and prints every scenario whose outcome or pods differ. Exit status 1
// when any differs or fails.
func runDifferential(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("differential", flag.ContinueOnError)
	fs.SetOutput(stderr)
	module := fs.String("module", harness.ReferenceModule, "in-process admission module to test")
	tags := fs.String("tags", "", "run only scenarios matching this tag expression")
	if err := fs.Parse(args); err != nil {
		return ExitError{Code: 2}
	}
	interrupts := interrupt.Catch(ctx)
	defer interrupts.Release()
	bin, err := binaries(interrupts.Context(), stderr)
	if err != nil {
		return err
	}
	report, err := differential.Run(interrupts.Context(), differential.Options{
		Paths: fs.Args(), Tags: *tags, Module: *module, Modules: modules(), BinDir: bin, Progress: stderr,
		Started: func(w *harness.World) { interrupts.OnSignal(w.Stop) },
	})
	if err != nil {
		if code := interrupts.Code(); code != 0 {
			return ExitError{Code: code}
		}
		return err
	}
	fmt.Fprintln(stdout)
	differential.Print(stdout, report)
	if report.Differences() > 0 || report.Failures() > 0 {
		return ExitError{Code: 1}
	}
	return nil
}
