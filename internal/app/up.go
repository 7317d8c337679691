package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/backend/envtest"
	"presetsim.dev/presetsim/internal/pathlock"
)

// up runs the envtest control plane with simulated nodes, the PodPreset CRD
// and the reference webhook for every namespace, writes a kubeconfig and
// stays up until SIGINT or SIGTERM, then stops everything.
func newUpCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "up [flags]",
		Short: "run a local cluster with presets active, for kubectl, until Ctrl-C",
		Long: `Starts kube-apiserver, kube-controller-manager, kube-scheduler, etcd, simulated nodes, the
PodPreset CRD and the reference webhook for every namespace, writes a kubeconfig and stays up
until Ctrl-C, then stops everything. One up at a time per kubeconfig path: a second one
with the same --kubeconfig is refused.`,
		Example: `  presetsim up
  presetsim up --kubeconfig /tmp/kc --nodes 5`,
	}
	fs := cmd.Flags()
	kubeconfig := fs.String("kubeconfig", filepath.Join(".cache", "up", "kubeconfig"), "where to write the kubeconfig")
	nodes := fs.Int("nodes", harness.DefaultNodes, "simulated nodes")
	cmd.Args = cli.NoArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *nodes < 0 {
			return cli.UsageError(cmd, fmt.Sprintf("--nodes must not be negative, not %d", *nodes))
		}
		path, err := filepath.Abs(*kubeconfig)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		// Claimed before anything starts: a second up for the same path is
		// refused at once, and stopping one never removes another's file.
		lock, err := pathlock.Claim(path)
		var held *pathlock.HeldError
		if errors.As(err, &held) {
			return cli.UsageError(cmd, fmt.Sprintf("another presetsim up is running with this kubeconfig (%v); stop it, or give this one its own: --kubeconfig PATH", held))
		}
		if err != nil {
			return err
		}
		defer func() {
			if err := lock.Release(); err != nil {
				fmt.Fprintf(stderr, "error while removing the kubeconfig: %v\n", err)
			}
		}()
		interrupts, bin, err := cli.Prepare(cmd.Context(), stderr)
		if err != nil {
			return err
		}
		defer interrupts.Release()
		w, err := harness.Start(interrupts.Context(), harness.Options{Backend: envtest.New(envtest.Options{BinDir: bin}), Progress: stderr, AllNamespaces: true, Nodes: *nodes})
		if err != nil {
			if interrupts.Code() != 0 {
				return nil // interrupted while starting; Start cleaned up
			}
			return err
		}
		defer func() {
			if err := w.Stop(); err != nil {
				fmt.Fprintf(stderr, "error while stopping: %v\n", err)
			}
		}()
		api, ok := w.API()
		if !ok {
			return fmt.Errorf("the %s backend has no API server to write a kubeconfig for", w.Backend)
		}
		if err := os.WriteFile(path, api.KubeConfig, 0o600); err != nil {
			return fmt.Errorf("unable to write the kubeconfig: %w", err)
		}
		kubectl := filepath.Join(bin, "kubectl")
		fmt.Fprintf(stdout, `The cluster is up: kube-apiserver, kube-controller-manager, kube-scheduler, %d simulated nodes,
	the PodPreset CRD and the reference PodPreset webhook for every namespace.

	  export KUBECONFIG=%s
	  %s get nodes

	kubectl of the same version: %s
	Press Ctrl-C to stop everything.
	`, *nodes, path, kubectl, kubectl)
		<-interrupts.Context().Done()
		return nil
	}
	return cmd
}
