package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/backends/cluster"
	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/internal/pathlock"
	"presetsim.dev/presetsim/internal/registry"
)

// up starts the backend and the implementation the registry's flags choose
// (the envtest control plane with simulated nodes and the reference
// webhook by default), for every namespace, writes a kubeconfig and
// stays up until SIGINT or SIGTERM, then stops everything.
func newUpCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "up [flags]",
		Short: "run a local cluster with presets active, for kubectl, until Ctrl-C",
		Long: `Starts a backend with an API server (by default envtest: kube-apiserver,
kube-controller-manager, kube-scheduler, etcd and simulated nodes), the PodPreset CRD and the
implementation under test (by default the reference webhook) for every namespace, writes a
kubeconfig and stays up until Ctrl-C, then stops everything. --backend and --implementation
(and their own flags) choose as they do for run. One up at a time per kubeconfig path: a
second one with the same --kubeconfig is refused.`,
		Example: `  presetsim up
  presetsim up --kubeconfig /tmp/kc --nodes 5
  presetsim up --backend kind
  presetsim up --implementation policy`,
	}
	fs := cmd.Flags()
	kubeconfig := fs.String("kubeconfig", filepath.Join(".cache", "up", "kubeconfig"), "where to write the kubeconfig")
	nodes := fs.Int("nodes", harness.DefaultNodes, "simulated nodes")
	choice := registry.Bind(fs, registry.Backends().Without(cluster.Name, offline.Name), registry.Implementations())
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
		chosen, err := choice.Resolve(implementation.Env{})
		if err != nil {
			return cli.UsageError(cmd, err.Error())
		}
		interrupts := interrupt.Catch(cmd.Context())
		defer interrupts.Release()
		w, err := harness.Start(interrupts.Context(), harness.Options{Backend: chosen.Backend, Leftovers: registry.Backends(),
			Implementation: chosen.Implementation, Profile: chosen.Profile, Progress: stderr, AllNamespaces: true, Nodes: *nodes})
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
		kubectl := "kubectl"
		if bin, err := envtest.FindBinaries(); err == nil {
			kubectl = filepath.Join(bin, "kubectl") // the control plane's own version
		}
		fmt.Fprintf(stdout, `The cluster is up (the %s backend), with the PodPreset CRD and %s for every namespace.

	  export KUBECONFIG=%s
	  %s get nodes

	Press Ctrl-C to stop everything.
	`, w.Backend, chosen.Implementation.Name(), path, kubectl)
		<-interrupts.Context().Done()
		return nil
	}
	return cmd
}
