package live

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/audit"
	"presetsim.dev/presetsim/internal/explain"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// DriftExitCode is audit's exit status when it finds drift.
const DriftExitCode = 3

// connection is the flags every live command shares.
type connection struct {
	kubeconfig, profilePath, namespace, output string
}

func (c *connection) flags(cmd *cobra.Command, namespaceHelp string) {
	fs := cmd.Flags()
	fs.StringVar(&c.kubeconfig, "kubeconfig", "", "the cluster's kubeconfig ($KUBECONFIG or ~/.kube/config when empty)")
	fs.StringVar(&c.profilePath, "profile", "", "profile (YAML) of the implementation the cluster runs: its preset kind and annotations; the canonical PodPreset when empty")
	fs.StringVarP(&c.namespace, "namespace", "n", "", namespaceHelp)
	fs.StringVarP(&c.output, "output", "o", "text", "output: text or json")
}

// connect reads the kubeconfig and the profile.
func (c *connection) connect() (audit.Clients, *profile.Profile, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = c.kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := loader.ClientConfig()
	if err != nil {
		return audit.Clients{}, nil, "", fmt.Errorf("unable to read the kubeconfig: %w", err)
	}
	ns, _, err := loader.Namespace()
	if err != nil {
		ns = metav1.NamespaceDefault
	}
	typed, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return audit.Clients{}, nil, "", err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return audit.Clients{}, nil, "", err
	}
	prof := profile.Canonical()
	if c.profilePath != "" {
		if prof, err = profile.Load(c.profilePath); err != nil {
			return audit.Clients{}, nil, "", err
		}
	}
	return audit.Clients{Typed: typed, Dynamic: dyn}, prof, ns, nil
}

// NewAuditCommand is "presetsim audit".
func NewAuditCommand(stdout, stderr io.Writer) *cobra.Command {
	var c connection
	cmd := &cobra.Command{
		Use:   "audit [flags]",
		Short: "find running pods that are not what the presets of their namespace now make of them",
		Long: `Reads a live cluster where a PodPreset implementation runs, and never writes to it (get, list
and watch are all it needs). For every pod a workload owns, it computes what the presets now in
its namespace make of its owner's pod template (the reference's merge; a profile's preset kind
and annotations with --profile) and compares it with the presets the pod carries: presets it
misses (created before the preset, or admitted while the implementation was down under
failurePolicy Ignore), carries at an older resourceVersion, carries though deleted or no longer
selecting it, and conflicts that keep every preset from the workload's new pods. Each drifted
workload comes with the command that replaces its pods.

Exit status: 0 when nothing drifted, 3 when something did (a CI or cron gate), 1 on an error,
2 on a usage error.`,
		Example: `  presetsim audit --kubeconfig ~/.kube/config
  presetsim audit -n shop -o json
  presetsim audit --profile profiles/redhat-cop-podpreset-webhook.yaml`,
		Args: cli.NoArgs,
	}
	c.flags(cmd, "audit only this namespace (every namespace when empty)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if c.output != "text" && c.output != "json" {
			return cli.UsageError(cmd, fmt.Sprintf("unknown output %q (want text or json)", c.output))
		}
		clients, prof, _, err := c.connect()
		if err != nil {
			return err
		}
		report, err := audit.Run(cmd.Context(), clients, prof, c.namespace)
		if err != nil {
			return err
		}
		if c.output == "json" {
			err = audit.WriteJSON(stdout, report)
		} else {
			err = audit.WriteTable(stdout, report)
		}
		if err != nil {
			return err
		}
		if report.Drifted() {
			return cli.ExitError{Code: DriftExitCode}
		}
		return nil
	}
	return cmd
}

// NewExplainCommand is "presetsim explain pod NAME".
func NewExplainCommand(stdout, stderr io.Writer) *cobra.Command {
	var c connection
	cmd := &cobra.Command{
		Use:   "explain pod NAME [flags]",
		Short: "say what each preset does to a live pod, and why",
		Long: `Reads a pod and the presets of the cluster (every namespace the identity may list; the pod's
otherwise) and says, for each preset, whether it applies to the pod and why, in the
specification's terms (as "presetsim apply --explain" does for files), then what the pod's
annotations record of its admission: each preset it was admitted with, at which
resourceVersion, against the preset now. It never writes to the cluster.`,
		Example: `  presetsim explain pod website -n shop
  presetsim explain pod website -n shop -o json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 || args[0] != "pod" {
				return cli.UsageError(cmd, "want: explain pod NAME")
			}
			return nil
		},
	}
	c.flags(cmd, "the pod's namespace (the kubeconfig's when empty)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if c.output != "text" && c.output != "json" {
			return cli.UsageError(cmd, fmt.Sprintf("unknown output %q (want text or json)", c.output))
		}
		clients, prof, ns, err := c.connect()
		if err != nil {
			return err
		}
		if c.namespace != "" {
			ns = c.namespace
		}
		ctx := cmd.Context()
		pod, err := clients.Typed.CoreV1().Pods(ns).Get(ctx, args[1], metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("unable to read pod %s/%s: %w", ns, args[1], err)
		}
		presets, err := listPresets(ctx, clients, prof, ns)
		if err != nil {
			return err
		}
		verdicts := explain.Pod(pod, presets)
		recorded := records(pod, presets, prof)
		if c.output == "json" {
			return writeJSON(stdout, map[string]any{"pod": pod.Name, "namespace": pod.Namespace, "presets": append([]explain.Verdict{}, verdicts...), "recorded": recorded})
		}
		fmt.Fprintf(stdout, "Pod %s (namespace %s):\n", pod.Name, pod.Namespace)
		if len(verdicts) == 0 {
			fmt.Fprintln(stdout, "  no PodPreset in the cluster")
		}
		for _, v := range verdicts {
			fmt.Fprintf(stdout, "  %s\n", v)
		}
		fmt.Fprintln(stdout, "Recorded at admission:")
		if len(recorded) == 0 {
			fmt.Fprintln(stdout, "  no preset annotation")
		}
		for _, r := range recorded {
			fmt.Fprintf(stdout, "  %s\n", r)
		}
		return nil
	}
	return cmd
}

// listPresets lists the presets of every namespace, or of ns when the
// identity may not list them cluster-wide.
func listPresets(ctx context.Context, clients audit.Clients, prof *profile.Profile, ns string) ([]*v1alpha1.PodPreset, error) {
	presets, err := audit.Presets(ctx, clients, prof, "")
	if apierrors.IsForbidden(err) {
		return audit.Presets(ctx, clients, prof, ns)
	}
	return presets, err
}

// records says, for each preset annotation the pod carries, what it
// recorded at admission against the preset now.
func records(pod *corev1.Pod, presets []*v1alpha1.PodPreset, prof *profile.Profile) []string {
	carried := audit.Carried(pod, prof)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(carried)) {
		rv := carried[name]
		i := slices.IndexFunc(presets, func(p *v1alpha1.PodPreset) bool { return p.Name == name && p.Namespace == pod.Namespace })
		switch {
		case i < 0:
			out = append(out, fmt.Sprintf("%s at resourceVersion %s: the preset no longer exists", name, rv))
		case presets[i].ResourceVersion != rv:
			out = append(out, fmt.Sprintf("%s at resourceVersion %s: the preset has changed since (now %s)", name, rv, presets[i].ResourceVersion))
		default:
			out = append(out, fmt.Sprintf("%s at resourceVersion %s: the preset as it is now", name, rv))
		}
	}
	return out
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
