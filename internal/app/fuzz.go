package app

import (
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/internal/words"
	"presetsim.dev/presetsim/rule"
)

// newFuzzCommand is presetsim fuzz: generative conformance.
func newFuzzCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fuzz [flags]",
		Short: "generate cases and compare the implementation's outcomes with the model",
		Long: `Generates cases — the presets of a namespace, a preset of another namespace and a pod, drawn
from the whole API surface with keys from small pools so that identical items and conflicts
are frequent — has the implementation under test admit each (a server-side dry run, then a
real create) and compares the whole outcome (stored pod, annotations, warnings, conflict
events, refusal) with the model: the reference behaviour, under the profile's declarations.

The first disagreement of each kind is shrunk to a small case and written to --out as a
ready-to-run scenario, tagged with the rules it breaks. The same seed gives the same cases.

Exit status: 0 when every case agrees with the model, 1 when one disagrees (or the clean-up
failed), 2 on a usage error, 130 or 143 when interrupted (then --report-dir's fuzz.json holds
the cases done, unshrunk).`,
		Example: `  presetsim fuzz --backend offline --cases 2000
  presetsim fuzz --module mutant/partial-apply --seed 7 --out fuzz-cases
  presetsim fuzz --implementation policy --cases 10000 --concurrency 16
  presetsim fuzz --webhook-url https://127.0.0.1:9443/mutate --webhook-ca ca.pem \
      --profile profiles/redhat-cop-podpreset-webhook.yaml --report-dir reports`,
		Args: cli.NoArgs,
	}
	fs := cmd.Flags()
	t := targetFlags(fs)
	fs.Lookup("report-dir").Usage = "write fuzz.json here (and, unless --out is given, the minimal scenarios under cases/)"
	cases := fs.Int("cases", 500, "cases to generate")
	seed := fs.Uint64("seed", 0, "seed of the run (printed; a random one when not given)")
	limit := fs.Duration("time", 0, "stop after this long, whatever --cases says")
	out := fs.String("out", "", "write each kind of disagreement, shrunk, as a .feature file here")
	concurrency := fs.Int("concurrency", 8, "cases to run at once")
	shard := fs.String("shard", "", "run only shard I of N (I/N) of the --cases: case i when i mod N = I-1; needs --seed, so that every shard is of one run")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		switch {
		case *cases < 1:
			return cli.UsageError(cmd, fmt.Sprintf("--cases must be at least 1, not %d", *cases))
		case *concurrency < 1:
			return cli.UsageError(cmd, fmt.Sprintf("--concurrency must be at least 1, not %d", *concurrency))
		case *limit < 0:
			return cli.UsageError(cmd, fmt.Sprintf("--time must not be negative, not %s", *limit))
		}
		var sh fuzz.Shard
		if *shard != "" {
			var err error
			if sh.I, sh.N, err = parseShard(*shard); err != nil {
				return cli.UsageError(cmd, err.Error())
			}
			if !fs.Changed("seed") {
				return cli.UsageError(cmd, "--shard needs --seed: every shard must be of one run")
			}
		}
		if !fs.Changed("seed") {
			*seed = uint64(time.Now().UnixNano())
		}
		if *out == "" && *t.reportDir != "" {
			*out = *t.reportDir + "/cases"
		}
		st, err := t.start(cmd.Context(), cmd, stderr)
		if err != nil {
			return err
		}
		defer st.stop(stderr)
		fmt.Fprintf(stderr, "fuzz: seed %d, %d cases, %s on %s (profile %s)\n", *seed, *cases, st.implementationName(), st.world.Backend, st.world.Profile.Metadata.Name)
		// A signal cancels the run's context: Run returns the cases done,
		// which fuzz.json holds. A run that does not return soon after is
		// stopped as any other command's.
		st.interrupts.OnSignal(nil)
		returned := make(chan struct{})
		go func() {
			select {
			case <-st.interrupts.Context().Done():
			case <-returned:
				return
			}
			select {
			case <-returned:
			case <-time.After(interruptGrace):
				st.interrupts.OnSignal(st.world.Stop)
			}
		}()
		sum, err := fuzz.Run(st.interrupts.Context(), st.world, fuzz.Options{
			Cases: *cases, Seed: *seed, Shard: sh, Time: *limit, Out: *out, Concurrency: *concurrency, Progress: stderr, Log: stderr,
		})
		close(returned)
		if code := st.interrupts.Code(); code != 0 {
			if *t.reportDir != "" && sum.Interrupted != "" {
				if werr := fuzz.WriteSummary(*t.reportDir, sum); werr != nil {
					fmt.Fprintf(stderr, "unable to write fuzz.json: %v\n", werr)
				} else {
					fmt.Fprintf(stderr, "interrupted: %s/fuzz.json holds the %d cases done\n", *t.reportDir, sum.Cases)
				}
			}
			return cli.ExitError{Code: code}
		}
		if err != nil {
			return err
		}
		sum.PeakRSSMiB = peakRSSMiB()
		fmt.Fprintf(stderr, "peak memory (RSS) of this process: %.0f MiB\n", sum.PeakRSSMiB)
		printPropagation(stderr, sum.Propagation)
		if *t.reportDir != "" {
			if err := fuzz.WriteSummary(*t.reportDir, sum); err != nil {
				return err
			}
		}
		printSummary(stdout, sum)
		if len(sum.Disagreements) > 0 {
			return cli.ExitError{Code: 1}
		}
		_, stopErr := st.stop(stderr)
		return cleanUpExit(stopErr)
	}
	return cmd
}

// interruptGrace is how long an interrupted fuzz run may take to return
// the cases it did before the World is stopped all the same.
const interruptGrace = 10 * time.Second

// printSummary prints the run's verdict: every kind of disagreement with
// its rules, count and minimal scenario.
func printSummary(w io.Writer, sum fuzz.Summary) {
	if len(sum.Disagreements) == 0 {
		fmt.Fprintf(w, "%d cases, every one agrees with the model (seed %d)\n", sum.Cases, sum.Seed)
		return
	}
	fmt.Fprintf(w, "%d of %d cases disagree with the model (seed %d), in %s:\n", sum.Disagreeing, sum.Cases, sum.Seed, words.Count(len(sum.Disagreements), "way"))
	for _, d := range sum.Disagreements {
		fmt.Fprintf(w, "\n  %s (%d cases): %s\n", rule.Join(d.Rules, ", "), d.Count, d.Summary)
		if d.NotReproduced != "" {
			fmt.Fprintf(w, "    not reproduced: %s\n", d.NotReproduced)
		}
		switch {
		case d.Feature != "" && d.NotShrunk:
			fmt.Fprintf(w, "    scenario, as found (not shrunk): %s\n", d.Feature)
		case d.Feature != "":
			fmt.Fprintf(w, "    minimal scenario: %s\n", d.Feature)
		default:
			fmt.Fprintf(w, "    case seed %d (--out writes it as a scenario)\n", d.CaseSeed)
		}
	}
	fmt.Fprintf(w, "\nrules broken: %s\n", rule.Join(sum.Rules(), ", "))
}

// printPropagation prints the propagation lag the run's histories
// measured (R6.1).
func printPropagation(w io.Writer, p *fuzz.Propagation) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "propagation (R6.1): %d presets created again shown within %.3gs at most", p.Shown, p.MaxSeconds)
	if p.Late > 0 {
		fmt.Fprintf(w, "; %d not shown within the %gs window", p.Late, p.WindowSeconds)
	}
	fmt.Fprintln(w)
}

// peakRSSMiB is the process's peak resident set size so far, in MiB (0
// where the system does not say).
func peakRSSMiB() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return float64(u.Maxrss) / 1024 // kilobytes on Linux
}
