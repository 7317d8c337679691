package app

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/interrupt"
)

// newToolsCommand is `presetsim tools`: the control-plane binaries.
func newToolsCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "the control-plane binaries a run starts (etcd, kube-apiserver, ...)",
		Args:  cli.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cli.UsageError(cmd, "tools needs a subcommand") },
	}
	install := &cobra.Command{
		Use:   "install [--dir DIR]",
		Short: "build the control-plane binaries from the Go module proxy, at the versions this binary pins",
		Long: `Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubectl from their
sources on the Go module proxy, at the versions this presetsim was made with, into the user
cache (or DIR), where every later run finds them. It needs the go command and takes about
10 minutes on 2 cores, once per version; a binary already built is kept.

A run looks for the binaries in $PRESETSIM_BIN_DIR, then $KUBEBUILDER_ASSETS (when it holds
all four the control plane runs), then this cache, then the repository's (make tools).`,
		Example: `  presetsim tools install
  presetsim tools install --dir /opt/presetsim/bin && export PRESETSIM_BIN_DIR=/opt/presetsim/bin`,
		Args: cli.NoArgs,
	}
	dir := install.Flags().String("dir", "", "put the binaries here instead of the user cache")
	install.RunE = func(cmd *cobra.Command, _ []string) error {
		interrupts := interrupt.Catch(cmd.Context())
		defer interrupts.Release()
		out, err := envtest.Install(interrupts.Context(), envtest.InstallOptions{Dir: *dir, Progress: stderr})
		if err != nil {
			if code := interrupts.Code(); code != 0 {
				return cli.ExitError{Code: code}
			}
			return err
		}
		fmt.Fprintln(stdout, out)
		return nil
	}
	where := &cobra.Command{
		Use:   "dir [--cache]",
		Short: "print the directory a run takes the control-plane binaries from",
		Long: `Prints the directory a run takes the control-plane binaries from, or fails when none holds
them. With --cache, prints instead the user-cache directory that tools install fills, built or
not: the path a CI job caches (its name changes with the versions this binary pins).`,
		Example: `  presetsim tools dir
  presetsim tools dir --cache`,
		Args: cli.NoArgs,
	}
	cache := where.Flags().Bool("cache", false, "print the user-cache directory tools install fills, whether or not it holds the binaries yet")
	where.RunE = func(*cobra.Command, []string) error {
		if *cache {
			dir, err := envtest.UserCache()
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, dir)
			return nil
		}
		found, err := envtest.FindBinaries()
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, found)
		return nil
	}
	cmd.AddCommand(install, where)
	return cmd
}
