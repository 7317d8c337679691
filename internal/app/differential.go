package app

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/differential"
	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/internal/suitecheck"
	"presetsim.dev/presetsim/steps"
)

// runDifferential runs the features on the offline and the envtest backends
// and prints every scenario whose outcome or pods differ. Exit status 1
// when any differs or fails.
func newDifferentialCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "differential [flags] [feature files or folders]",
		Short: "run the features offline and on envtest; report every difference",
		Long: `Runs the same features on the offline backend and on envtest, with the same module (or,
with --implementation policy, the presets compiled into policies), and prints every scenario
whose outcome or pods differ. With no path, the suite built into this binary runs. Exit status
1 when any differs or fails.`,
		Example: `  presetsim differential
  presetsim differential --tags @R3.4 features/keys.feature
  presetsim differential --implementation policy`,
	}
	fs := cmd.Flags()
	name := fs.String("module", module.Reference, "in-process admission module to test")
	tags := fs.String("tags", "", "run only scenarios matching this tag expression")
	impl := fs.String("implementation", "module", "module (the in-process module --module names) or policy (the presets compiled into policies: the API server's plug-ins in-process offline, the API server on envtest)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *impl != "module" && *impl != "policy" {
			fmt.Fprintf(stderr, "unknown --implementation %q (want module or policy)\n", *impl)
			return cli.ExitError{Code: 2}
		}
		paths, fsys := suiteSource(args)
		if err := suitecheck.Check(suitecheck.Options{Paths: paths, FS: fsys, Format: "pretty", Tags: *tags, Concurrency: 1, Steps: steps.Expressions(), Manifests: steps.ManifestExpressions(), Inputs: steps.InputExpressions()}); err != nil {
			return cli.SuiteError(cmd, err)
		}
		interrupts, bin, err := cli.Prepare(cmd.Context(), stderr)
		if err != nil {
			return err
		}
		defer interrupts.Release()
		report, err := differential.Run(interrupts.Context(), differential.Options{
			Paths: paths, FS: fsys, Tags: *tags, Module: *name, Modules: mutants.Registry(), Policy: *impl == "policy", BinDir: bin, Progress: stderr,
			OnSignal: interrupts.OnSignal,
		})
		if err != nil {
			if code := interrupts.Code(); code != 0 {
				return cli.ExitError{Code: code}
			}
			return err
		}
		fmt.Fprintln(stdout)
		differential.Print(stdout, report)
		if report.Differences() > 0 || report.Failures() > 0 {
			return cli.ExitError{Code: 1}
		}
		return nil
	}
	return cmd
}
