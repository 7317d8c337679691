package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/interrupt"
)

// up runs the envtest control plane with simulated nodes, the PodPreset CRD
// and the reference webhook for every namespace, writes a kubeconfig and
// stays up until SIGINT or SIGTERM, then stops everything.
func up(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kubeconfig := fs.String("kubeconfig", filepath.Join(".cache", "up", "kubeconfig"), "where to write the kubeconfig")
	nodes := fs.Int("nodes", harness.DefaultNodes, "simulated nodes")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return ExitError{Code: 2}
	}
	interrupts := interrupt.Catch(ctx)
	defer interrupts.Release()
	bin, err := binaries(interrupts.Context(), stderr)
	if err != nil {
		return err
	}
	w, err := harness.Start(interrupts.Context(), harness.Options{BinDir: bin, Progress: stderr, AllNamespaces: true, Nodes: *nodes})
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
	path, err := filepath.Abs(*kubeconfig)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(path, w.KubeConfig, 0o600); err != nil {
		return fmt.Errorf("unable to write the kubeconfig: %w", err)
	}
	defer os.Remove(path)
	kubectl := filepath.Join(w.BinDir, "kubectl")
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
