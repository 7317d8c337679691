package bench

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/tailbuf"
	"presetsim.dev/presetsim/outcome"
)

// chainsawTests are the seed features written as chainsaw tests, one per
// scenario but the second conflict scenario (chainsaw sees no admission
// warning); each file names the scenario it stands for. They are ours:
// chainsaw itself is built by hand by whoever compares, never by this
// repository.
//
//go:embed chainsaw
var chainsawTests embed.FS

// crossNamespaceTest is the chainsaw test that applies a second
// namespace: chainsaw waits for that namespace to be deleted, even with
// --fast-namespace-deletion, so the side by side is also timed without it.
const crossNamespaceTest = "simple-other-namespace"

// series is one side-by-side series: each command's wall time per run,
// and the clean-up presetsim printed.
type series struct {
	presetsim, chainsaw, cleanUp []time.Duration
	scenarios                    int // as presetsim run counted them
}

// compareChainsaw runs the seed features with presetsim (the binary at
// path presetsim: run --kubeconfig) and as chainsaw tests (the fastest
// mode: --parallel 4 --fast-namespace-deletion) against one cluster like
// presetsim up's (the reference webhook for every namespace): all the
// tests, then all but crossNamespaceTest (presetsim still runs all 11
// scenarios). Each series runs each command runs times, alternating which
// goes first, after one warm-up run of each, each run started on a quiet
// cluster (no namespace being deleted), and prints both medians, the
// median of the pairwise ratios, and presetsim's clean-up. Either failing
// is an error that shows its last lines: a failed run is not a time to
// compare. Its control plane is started beside the bench's.
func compareChainsaw(ctx context.Context, stdout io.Writer, side beside, bin, presetsim, chainsaw, dir string, runs int, figures *Figures) error {
	sub, err := fs.Sub(chainsawTests, "chainsaw")
	if err != nil {
		return err
	}
	all, same := filepath.Join(dir, "chainsaw-all"), filepath.Join(dir, "chainsaw-same-namespace")
	for _, d := range []string{all, same} {
		if err := os.CopyFS(d, sub); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(filepath.Join(same, crossNamespaceTest)); err != nil {
		return err
	}
	w, err := side.start(harness.Options{AllNamespaces: true})
	if err != nil {
		return err
	}
	defer side.stop(w)
	api, ok := w.API()
	if !ok {
		return fmt.Errorf("the %s backend has no API server", w.Backend)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, api.KubeConfig, 0o600); err != nil {
		return err
	}
	reports := filepath.Join(dir, "reports")
	ours := append([]string{presetsim, "run", "--kubeconfig", kubeconfig, "--report-dir", reports}, seedFeatures...)
	theirs := []string{chainsaw, "test", "--parallel", "4", "--fast-namespace-deletion", "--no-color"}
	fmt.Fprintf(stdout, "\nside by side with chainsaw on one cluster: the seed features, %d runs each, alternating, each on a quiet cluster, after a warm-up\n", runs)
	fmt.Fprintf(stdout, "%-66s %10s %10s   %s\n", "", "presetsim", "chainsaw", "presetsim / chainsaw (pairwise median)")
	n := chainsawTestCount()
	for _, c := range []struct {
		name, tests string
		count       int
	}{
		{"all", all, n},
		{"without " + crossNamespaceTest, same, n - 1},
	} {
		s, err := timeSeries(ctx, kubeconfig, ours, append(slices.Clone(theirs), c.tests), reports, runs, func() error { return quiet(ctx, api.Client) })
		if err != nil {
			return err
		}
		r := s.ratio()
		faster := fmt.Sprintf("presetsim %.2fx faster", 1/r)
		if r > 1 {
			faster = fmt.Sprintf("chainsaw %.2fx faster", r)
		}
		fmt.Fprintf(stdout, "  %-64s %10s %10s   %.3f (%s)\n", fmt.Sprintf("%s: %d scenarios, %d chainsaw tests", c.name, s.scenarios, c.count),
			pct(s.presetsim, 50), pct(s.chainsaw, 50), r, faster)
		fmt.Fprintf(stdout, "  %-64s %10s\n", "  of which presetsim's clean-up and stop", pct(s.cleanUp, 50))
		if figures.ChainsawRatio == nil {
			figures.ChainsawRatio = map[string]Ratio{}
		}
		figures.ChainsawRatio[c.name] = atMost(r, chainsawGoal)
	}
	return nil
}

// timeSeries times the two commands runs times each, alternating which
// goes first, after one warm-up run of each; each starts once settled
// says the cluster is quiet. Presetsim's clean-up and scenarios are read
// from the summary it writes into reports.
func timeSeries(ctx context.Context, kubeconfig string, ours, theirs []string, reports string, runs int, settled func() error) (series, error) {
	var s series
	for i := -1; i < runs; i++ { // run -1 is the warm-up
		for _, presetsimNow := range []bool{i%2 == 0, i%2 != 0} {
			if err := settled(); err != nil {
				return s, err
			}
			if presetsimNow {
				d, err := timed(ctx, kubeconfig, ours)
				if err != nil {
					return s, err
				}
				summary, err := readSummary(reports)
				if err != nil {
					return s, err
				}
				if i >= 0 {
					s.presetsim = append(s.presetsim, d)
					s.cleanUp = append(s.cleanUp, time.Duration(summary.Timing.CleanUpSeconds*float64(time.Second)))
					s.scenarios = len(summary.Scenarios)
				}
				continue
			}
			d, err := timed(ctx, kubeconfig, theirs)
			if err != nil {
				return s, err
			}
			if i >= 0 {
				s.chainsaw = append(s.chainsaw, d)
			}
		}
	}
	return s, nil
}

// quietBound bounds the wait for a quiet cluster.
const quietBound = time.Minute

// quiet waits until no namespace is being deleted, polling every 100 ms
// for up to quietBound: neither command starts while the namespace
// controller still empties the other's namespaces (chainsaw's
// --fast-namespace-deletion does not wait for them; presetsim waits for
// what it created, not for its namespaces to be finalized).
func quiet(ctx context.Context, client kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(ctx, quietBound)
	defer cancel()
	for {
		list, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("waiting for a quiet cluster: %w", err)
		}
		var terminating []string
		for _, ns := range list.Items {
			if ns.Status.Phase == corev1.NamespaceTerminating {
				terminating = append(terminating, ns.Name)
			}
		}
		if len(terminating) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for a quiet cluster (%w; at most %s): namespaces still being deleted: %s", ctx.Err(), quietBound, strings.Join(terminating, ", "))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ratio is the median of presetsim's time over chainsaw's, run by run.
func (s series) ratio() float64 {
	ratios := make([]float64, len(s.presetsim))
	for i := range ratios {
		ratios[i] = s.presetsim[i].Seconds() / s.chainsaw[i].Seconds()
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}

// timed runs a command with KUBECONFIG set and returns its wall time; a
// failure is an error with its last lines.
func timed(ctx context.Context, kubeconfig string, args []string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	var out tailbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w; its last lines:\n%s", filepath.Base(args[0]), args[1], err, out.Tail())
	}
	return d, nil
}

// readSummary reads the summary.json presetsim run wrote into dir; one
// without timing is an error.
func readSummary(dir string) (*outcome.Report, error) {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	s, err := outcome.ReadReport(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "summary.json"), err)
	}
	if s.Timing == nil {
		return nil, fmt.Errorf("%s has no timing", filepath.Join(dir, "summary.json"))
	}
	return s, nil
}

// chainsawTestCount is how many chainsaw tests there are.
func chainsawTestCount() int {
	n := 0
	_ = fs.WalkDir(chainsawTests, "chainsaw", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "chainsaw-test.yaml" {
			n++
		}
		return err
	})
	return n
}
