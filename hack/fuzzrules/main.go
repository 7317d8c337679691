// Command fuzzrules measures how well presetsim fuzz names the rule a fault
// breaks: it fuzzes every module mutant (internal/mutants) in process,
// offline or on envtest (a control plane each), and counts the kinds of disagreement whose first rule is the
// mutant's own, and the cases of those kinds. make fuzz-rules runs it; the
// figures in docs/mutation.md ("The rule fuzz names first") are its output.
//
//	go run ./hack/fuzzrules [-backend offline|envtest] [-cases 300] [-seed 7] [-concurrency 4] [-only NAME,...] [-wrong]
//
// It prints one line per mutant — its kinds, those whose first rule is the
// mutant's, their cases, and how long the run took to find the first
// disagreement and after how many cases — then the totals, and exits 1
// when a mutant shows no disagreement at all. With -wrong it also says, as
// it goes, each kind whose first rule is not the mutant's: its rules,
// whether it was reproduced run again alone, the seed of its case
// (fuzz.Generate's) and its summary, which names the variant it behaves as
// if it were, if any.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/internal/mutants"
)

func main() {
	cases := flag.Int("cases", 300, "cases per mutant")
	seed := flag.Uint64("seed", 7, "the runs' seed")
	concurrency := flag.Int("concurrency", 4, "cases at once")
	only := flag.String("only", "", "comma-separated mutant names (all when empty)")
	wrong := flag.Bool("wrong", false, "say each kind whose first rule is not the mutant's")
	backendName := flag.String("backend", "offline", "offline, or envtest (PRESETSIM_BIN_DIR names the control plane's binaries: presetsim tools dir)")
	flag.Parse()
	// envtest logs through controller-runtime's global logger as it
	// starts; unset, it prints a warning with a stack trace. A program's
	// to choose: this one says what it measures itself.
	ctrllog.SetLogger(logr.Discard())
	// client-go's lines (a watch its run cancelled, say) are no figure.
	klog.SetLogger(logr.Discard())
	var newBackend func() backend.Backend
	switch *backendName {
	case "offline":
		newBackend = func() backend.Backend { return offline.New() }
	case "envtest":
		newBackend = func() backend.Backend { return envtest.New(envtest.Options{}) }
	default:
		fmt.Fprintf(os.Stderr, "fuzzrules: -backend %q: want offline or envtest\n", *backendName)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	missed, err := run(ctx, os.Stdout, os.Stderr, newBackend, fuzz.Options{Cases: *cases, Seed: *seed, Concurrency: *concurrency}, names, *wrong)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzrules:", err)
		os.Exit(2)
	}
	if missed > 0 {
		os.Exit(1)
	}
}

// tally is what one or all mutants' runs showed.
type tally struct{ kinds, right, cases, rightCases int }

func (t *tally) add(o tally) {
	t.kinds, t.right, t.cases, t.rightCases = t.kinds+o.kinds, t.right+o.right, t.cases+o.cases, t.rightCases+o.rightCases
}

// run fuzzes the named mutants (every one when names is empty) and prints
// the table, and to progress, when wrong is set, each kind whose first rule
// is not the mutant's; it returns how many showed no disagreement.
func run(ctx context.Context, out, progress io.Writer, newBackend func() backend.Backend, opts fuzz.Options, names []string, wrong bool) (missed int, err error) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "mutant\trule\tkinds\tfirst rule right\tcases\tof them right\tfirst found (s)\tafter cases")
	var all tally
	found, slowest := 0, 0.0
	for _, m := range mutants.All {
		if len(names) > 0 && !slices.Contains(names, m.Name) {
			continue
		}
		impl, err := mutants.Implementation(mutants.Prefix + m.Name)
		if err != nil {
			return 0, err
		}
		w, err := harness.Start(ctx, harness.Options{Backend: newBackend(), Implementation: impl, Unsubscribed: backend.UnsubscribedFail})
		if err != nil {
			return 0, fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		sum, err := fuzz.Run(ctx, w, opts)
		if serr := w.Stop(); err == nil {
			err = serr
		}
		if err != nil {
			return 0, fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		var t tally
		for _, d := range sum.Disagreements {
			t.kinds++
			t.cases += d.Count
			if len(d.Rules) > 0 && d.Rules[0] == m.Rule {
				t.right++
				t.rightCases += d.Count
			} else if wrong {
				fmt.Fprintf(progress, "fuzzrules: %s: wrong first rule %v (%d cases, seed %d)%s: %s\n",
					m.Name, d.Rules, d.Count, d.CaseSeed, notReproduced(d.NotReproduced), firstLine(d.Summary))
			}
		}
		if t.kinds == 0 {
			missed++
		} else {
			found++
		}
		all.add(t)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.2f\t%d\n", m.Name, m.Rule, t.kinds, t.right, t.cases, t.rightCases, sum.FirstSeconds, sum.FirstCases)
		// The table is written once aligned, at the end; a run of many
		// minutes says each mutant's line as it goes.
		fmt.Fprintf(progress, "fuzzrules: %s (%s): %d kinds, %d first rule right; %d cases, %d right; first found after %.2f s\n", m.Name, m.Rule, t.kinds, t.right, t.cases, t.rightCases, sum.FirstSeconds)
		slowest = max(slowest, sum.FirstSeconds)
	}
	fmt.Fprintf(tw, "all: %d of %d found\t\t%d\t%d (%.0f %%)\t%d\t%d (%.0f %%)\t%.2f (the longest)\t\n", found, found+missed, all.kinds, all.right, percent(all.right, all.kinds), all.cases, all.rightCases, percent(all.rightCases, all.cases), slowest)
	return missed, tw.Flush()
}

func notReproduced(why string) string {
	if why == "" {
		return ""
	}
	return ", not reproduced"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func percent(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
