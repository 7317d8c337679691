package app

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/internal/app/cli"
)

// suiteSource is where a run's feature files are: the paths given, on
// disk, or, when none is, the suite built into the binary.
func suiteSource(args []string) ([]string, fs.FS) {
	if len(args) == 0 {
		return []string{presetsim.SuitePath}, presetsim.Suite
	}
	return args, nil
}

// newFeaturesCommand is `presetsim features`, whose one subcommand is
// export.
func newFeaturesCommand(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "features",
		Short: "the feature suite built into this binary",
		Args:  cli.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cli.UsageError(cmd, "features needs a subcommand") },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "export DIR",
		Short: "write the built-in feature suite into DIR (made if missing; existing files are not overwritten)",
		Long: `Writes the curated feature suite this binary runs by default into DIR, one .feature file
each, to read, to edit into a suite of your own, or to run with presetsim run DIR. A file
that already exists in DIR is left as it is, and the command fails naming it.`,
		Example: `  presetsim features export my-suite
  presetsim run my-suite`,
		Args: cli.OneArg,
		RunE: func(_ *cobra.Command, args []string) error {
			files, err := exportSuite(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %d feature files to %s\n", files, args[0])
			return nil
		},
	})
	return cmd
}

// exportSuite writes the built-in suite's files into dir and returns how
// many it wrote.
func exportSuite(dir string) (int, error) {
	entries, err := fs.ReadDir(presetsim.Suite, presetsim.SuitePath)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		data, err := fs.ReadFile(presetsim.Suite, presetsim.SuitePath+"/"+e.Name())
		if err != nil {
			return n, err
		}
		path := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return n, fmt.Errorf("unable to write %s: %w", path, err)
		}
		_, werr := f.Write(data)
		if err := f.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			return n, fmt.Errorf("unable to write %s: %w", path, werr)
		}
		n++
	}
	return n, nil
}
