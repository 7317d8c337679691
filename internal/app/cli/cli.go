package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/internal/suitecheck"
)

// ExitError carries a process exit status.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// NoArgs refuses arguments, as a usage error.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return UsageError(cmd, fmt.Sprintf("unexpected argument %q", args[0]))
	}
	return nil
}

// AtLeastOneArg asks for one argument or more, as a usage error.
func AtLeastOneArg(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return UsageError(cmd, "at least one argument is needed")
	}
	return nil
}

// OneArg asks for exactly one argument, as a usage error.
func OneArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return UsageError(cmd, fmt.Sprintf("one argument is needed, not %d", len(args)))
	}
	return nil
}

// SuiteError reports what suitecheck.Check found: mistakes in the feature
// files (exit status 4: no verdict, nothing ran) or a usage error (2).
func SuiteError(cmd *cobra.Command, err error) error {
	var mistakes *suitecheck.FeatureErrors
	if !errors.As(err, &mistakes) {
		return UsageError(cmd, err.Error())
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d %s in the feature files; nothing was run, and no rule is judged:\n",
		cmd.CommandPath(), len(mistakes.Errs), map[bool]string{true: "mistake", false: "mistakes"}[len(mistakes.Errs) == 1])
	for _, e := range mistakes.Errs {
		fmt.Fprintf(cmd.ErrOrStderr(), "  %s\n", strings.ReplaceAll(e.Error(), "\n", "\n  "))
	}
	return ExitError{Code: 4}
}

// UsageError says what is wrong and where the help is, and is exit status 2.
func UsageError(cmd *cobra.Command, msg string) error {
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\nRun '%s --help' for usage.\n", cmd.CommandPath(), msg, cmd.CommandPath())
	return ExitError{Code: 2}
}

// Binaries returns the directory of the control-plane binaries. When they
// are not built yet, the command builds them, as an explicit step that says
// what it does and how long it takes; the harness itself never builds.
func Binaries(ctx context.Context, stderr io.Writer) (string, error) {
	dir, err := envtest.FindBinaries()
	if !errors.Is(err, envtest.ErrBinariesNotBuilt) || !envtest.CanBuild() {
		return dir, err
	}
	fmt.Fprintln(stderr, "The control-plane binaries are not built yet; building them now, as `make tools` does (about 7 minutes, once) ...")
	return envtest.BuildBinaries(ctx, stderr)
}

// Prepare is the start of every command that starts a control plane: it
// catches signals (Release them when done) and finds, or builds, the
// binaries.
func Prepare(ctx context.Context, stderr io.Writer) (*interrupt.Interrupts, string, error) {
	interrupts := interrupt.Catch(ctx)
	bin, err := Binaries(interrupts.Context(), stderr)
	if err != nil {
		interrupts.Release()
		return nil, "", err
	}
	return interrupts, bin, nil
}

// ReadFile reads a manifest named on the command line, or standard input
// for "-" (named "<stdin>" in messages), and returns the name to report.
func ReadFile(name string, stdin io.Reader) (string, []byte, error) {
	if name == "-" {
		b, err := io.ReadAll(stdin)
		return "<stdin>", b, err
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return name, nil, fmt.Errorf("unable to read the manifest: %w", err)
	}
	return name, b, nil
}
