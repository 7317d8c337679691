package policy

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	compiled "presetsim.dev/presetsim/presets/policy"
)

// newControllerCommand is "presetsim policy controller": the compiling
// controller of presets/policy as a long-running process, in a cluster's
// pod (deploy/policy) or beside it.
func newControllerCommand(stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "controller [--kubeconfig FILE] [flags]",
		Short: "keep every namespace's MutatingAdmissionPolicy compiled from its PodPresets, until stopped",
		Long: `Watches the PodPresets of every namespace and keeps, for each namespace that has any, the
MutatingAdmissionPolicy and binding that presetsim policy prints, written in the cluster: compiled
again whenever one of its presets is created, changed or deleted, and deleted with its last
preset. The API server then applies the presets itself; no webhook is involved, and nothing is
to re-apply when presets change.

In a pod it uses the pod's service account (deploy/policy: the CRD, a ServiceAccount, the least
RBAC and a Deployment); elsewhere --kubeconfig. One replica: two would write the same objects,
harmlessly but twice. It stops on SIGTERM or Ctrl-C.

Exit status: 0 when stopped, 1 when it cannot reach the cluster, 2 on a usage error.`,
		Example: `  kubectl apply -k deploy/policy
  presetsim policy controller --kubeconfig ~/.kube/config`,
		Args: cli.NoArgs,
	}
	fs := cmd.Flags()
	kubeconfig := fs.String("kubeconfig", "", "the cluster's kubeconfig; the pod's service account when empty")
	options := optionFlags(fs)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		opts, err := options(cmd)
		if err != nil {
			return err
		}
		clients, err := cli.Connect(*kubeconfig)
		if err != nil {
			return err
		}
		cfg := clients.Config
		version, err := clients.Typed.Discovery().ServerVersion()
		if err != nil {
			return fmt.Errorf("unable to reach the API server at %s: %w", cfg.Host, err)
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		ctrl := compiled.NewController(clients.Typed, clients.Dynamic, compiled.ControllerOptions{
			Options: opts,
			OnError: func(err error) { fmt.Fprintf(stderr, "error: %v (trying again)\n", err) },
			OnWrite: func(namespace, presets string) {
				if presets == "" {
					fmt.Fprintf(stderr, "namespace %s: no presets; its policy deleted\n", namespace)
					return
				}
				fmt.Fprintf(stderr, "namespace %s: policy %s written from presets %s\n", namespace, compiled.Name(namespace), presets)
			},
		})
		fmt.Fprintf(stderr, "compiling PodPresets into MutatingAdmissionPolicies on %s (Kubernetes %s) until stopped\n", cfg.Host, version.GitVersion)
		if err := ctrl.Run(ctx); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "stopped")
		return nil
	}
	return cmd
}
