package policy

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	compiled "presetsim.dev/presetsim/presets/policy"
)

// NewCommand is "presetsim policy": it prints the MutatingAdmissionPolicy
// (and binding) that implements a user's presets in the API server, with no
// webhook.
func NewCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy -f FILE [-f FILE ...] [flags]",
		Short: "print the admission policies that implement the presets without a webhook",
		Long: `Reads PodPresets (multi-document YAML; other objects are ignored) and prints, for each namespace,
a MutatingAdmissionPolicy and its binding (admissionregistration.k8s.io/v1, Kubernetes 1.36 or
later) that make the API server apply those presets to the pods created in that namespace, as
the reference does, with no webhook and nothing of presetsim in the cluster, and a
ValidatingAdmissionPolicy and its binding that return the conflict warnings. The presets are
compiled into the policy: apply its output again after changing them, or run presetsim policy
controller in the cluster (deploy/policy), which keeps them compiled. docs/guide.md's "PodPreset
without a webhook" says what differs from the reference (no events; a preset read from a file
has no resourceVersion, so its podpreset-<name> annotation is empty).

Exit status: 0, 1 on an error in the input, 2 on a usage error.`,
		Example: `  presetsim policy -f presets.yaml | kubectl apply -f -
  kubectl get podpresets -A -o yaml | presetsim policy -f -`,
		Args: cli.NoArgs,
	}
	cmd.AddCommand(newControllerCommand(stderr))
	fs := cmd.Flags()
	var files []string
	fs.StringArrayVarP(&files, "filename", "f", nil, "manifest file (multi-document YAML), folder of them, or - for standard input; repeatable")
	options := optionFlags(fs)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if len(files) == 0 {
			return cli.UsageError(cmd, "at least one -f FILE is needed")
		}
		opts, err := options(cmd)
		if err != nil {
			return err
		}
		byNamespace := map[string][]*v1alpha1.PodPreset{}
		objs, err := cli.ReadManifests(files, stdin)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if p, ok := o.Object.(*v1alpha1.PodPreset); ok {
				if p.Namespace == "" {
					p.Namespace = "default"
				}
				byNamespace[p.Namespace] = append(byNamespace[p.Namespace], p)
			}
		}
		if len(byNamespace) == 0 {
			fmt.Fprintln(stderr, "no PodPreset in the input")
			return nil
		}
		for _, ns := range slices.Sorted(maps.Keys(byNamespace)) {
			objs, err := compiled.Compile(ns, byNamespace[ns], opts)
			if err != nil {
				return err
			}
			for _, o := range objs.All() {
				out, err := yaml.Marshal(o)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "---\n%s", out)
			}
		}
		return nil
	}
	return cmd
}
