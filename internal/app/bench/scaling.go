package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/fuzz"
)

// scenariosPerFile is how many generated scenarios one feature file holds.
const scenariosPerFile = 100

// generatedScenario is scenario i of the scaling runs: a preset of its own,
// a pod it selects, and the preset's annotation checked.
func generatedScenario(i int) string {
	return fmt.Sprintf(`
  Scenario: generated %[1]d
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: preset-%[1]d
      spec:
        selector:
          matchLabels:
            role: r%[2]d
        env:
          - name: VAR_%[1]d
            value: "%[1]d"
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: p
        labels:
          role: r%[2]d
      spec:
        containers:
          - name: c
            image: i
      """
    Then the pod "p" should have the annotations:
      | key                                                    | value            |
      | podpreset.admission.kubernetes.io/podpreset-preset-%[1]d | ${rv:preset-%[1]d} |
`, i, i%7)
}

// writeGenerated writes n generated scenarios into dir, scenariosPerFile
// to a feature file.
func writeGenerated(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for f := 0; f*scenariosPerFile < n; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "Feature: generated %d\n", f)
		for i := f * scenariosPerFile; i < min(n, (f+1)*scenariosPerFile); i++ {
			b.WriteString(generatedScenario(i))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("generated-%04d.feature", f)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// usage is what one run of this binary as a child process took.
type usage struct {
	wall    time.Duration
	peakRSS int64 // bytes; 0 when /proc cannot tell
}

// runSelf runs this binary with args, its output discarded, and returns
// its wall time and peak resident set size (with the error, when it
// failed): the child's VmHWM, read from
// /proc every 20 ms while it runs (getrusage's ru_maxrss would not do: it
// keeps the high-water mark of the process before exec, this one's).
func runSelf(ctx context.Context, args ...string) (usage, error) {
	exe, err := os.Executable()
	if err != nil {
		return usage{}, err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return usage{}, err
	}
	var peak atomic.Int64
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if hwm := highWaterMark(cmd.Process.Pid); hwm > peak.Load() {
				peak.Store(hwm)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	err = cmd.Wait()
	close(stop)
	<-polled
	u := usage{wall: time.Since(start), peakRSS: peak.Load()}
	if err != nil {
		return u, fmt.Errorf("presetsim %s: %w", strings.Join(args, " "), err)
	}
	return u, nil
}

// highWaterMark is a process's peak resident set size (VmHWM) in bytes; 0
// when it cannot be read (the process is gone, or no /proc).
func highWaterMark(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// newScalingCommand is "presetsim bench scaling": the scaling runs alone.
func newScalingCommand(stdout io.Writer) *cobra.Command {
	var jsonPath string
	cmd := &cobra.Command{
		Use:   "scaling",
		Short: "measure scenarios/s offline, apply's pods/s and fuzz cases/s, with each run's peak memory",
		Long: `Runs 100, 1,000 and 10,000 generated scenarios offline, presetsim apply over 5 MB and 50 MB
of generated manifests and over a preset of 5,000, 10,000 and 20,000 env vars, and presetsim fuzz
offline and on envtest, each as a child process of this binary, and prints the rate, the wall time
and the peak resident memory of each: the part of presetsim bench that shows how time and memory
grow with the work.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := os.MkdirTemp("", "presetsim-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			figures := &Figures{}
			if err := scaling(cmd.Context(), stdout, dir, figures); err != nil {
				return err
			}
			if jsonPath != "" {
				return figures.write(jsonPath)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&jsonPath, "json", "", "also write every figure beside its goal to this file, as JSON")
	return cmd
}

// scaling prints scenarios/s and peak memory for 100, 1,000 and 10,000
// generated scenarios offline, and fuzz cases/s and peak memory offline and
// on envtest, each a child process of this binary: time should grow
// linearly with the work, memory not at all.
func scaling(ctx context.Context, stdout io.Writer, dir string, figures *Figures) error {
	fmt.Fprintf(stdout, "\n%-52s %12s %10s %12s\n", "scaling (a child process each; wall from its start)", "per second", "wall", "peak RSS")
	for _, n := range []int{100, 1000, 10000} {
		d := filepath.Join(dir, fmt.Sprintf("generated-%d", n))
		if err := writeGenerated(d, n); err != nil {
			return err
		}
		u, err := runSelf(ctx, "run", "--backend", "offline", d)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-52s %12.0f %10s %9.0f MiB\n", fmt.Sprintf("  run offline, %d generated scenarios", n),
			float64(n)/u.wall.Seconds(), u.wall.Round(time.Millisecond), float64(u.peakRSS)/(1<<20))
	}
	if err := applyScaling(ctx, stdout, dir, figures); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	// presetsim serve as an external webhook: what a user's webhook costs
	// fuzz beside the module in-process.
	external := []string{"--webhook-url", fmt.Sprintf("https://127.0.0.1:%d/mutate-pods", port),
		"--webhook-command", fmt.Sprintf("%s serve --kubeconfig {kubeconfig} --addr 127.0.0.1:%d --cert {cert} --key {key}", exe, port)}
	for i, f := range []struct {
		name, figure string
		args         []string
		cases        int
		goal         float64
	}{
		{name: "offline", figure: "offline", args: []string{"--backend", "offline"}, cases: 1000},
		{name: "offline", args: []string{"--backend", "offline"}, cases: 10000},
		{name: "envtest", args: []string{"--backend", "envtest"}, cases: 200},
		{name: "envtest", figure: "inProcess", args: []string{"--backend", "envtest"}, cases: 1000, goal: fuzzInProcessGoal},
		{name: "envtest, presetsim serve as the webhook", figure: "external", args: external, cases: 200, goal: fuzzExternalGoal},
		{name: "offline, the policy", figure: "policyOffline", args: []string{"--backend", "offline", "--implementation", "policy"}, cases: 200, goal: fuzzPolicyOfflineGoal},
	} {
		report := filepath.Join(dir, fmt.Sprintf("fuzz-%d", i))
		u, err := runSelf(ctx, append([]string{"fuzz", "--cases", fmt.Sprint(f.cases), "--seed", "1", "--report-dir", report}, f.args...)...)
		if err != nil {
			return err
		}
		sum, err := readFuzzSummary(report)
		if err != nil {
			return fmt.Errorf("fuzz %s: %w", f.name, err)
		}
		// The run's pace is its cases' own: the process's wall time adds
		// the backend's start and stop.
		rate, admissions := float64(sum.Cases)/sum.CasesSeconds, float64(sum.Admissions)/sum.CasesSeconds
		fmt.Fprintf(stdout, "%-52s %12.0f %10s %9.0f MiB  (%.0f admissions/s)\n", fmt.Sprintf("  fuzz %s, %d cases", f.name, f.cases),
			rate, u.wall.Round(time.Millisecond), float64(u.peakRSS)/(1<<20), admissions)
		if f.figure != "" {
			if figures.FuzzCasesPerSecond == nil {
				figures.FuzzCasesPerSecond = map[string]Rate{}
				figures.FuzzAdmissionsPerSecond = map[string]Rate{}
			}
			figures.FuzzCasesPerSecond[f.figure] = atLeast(rate, f.goal)
			figures.FuzzAdmissionsPerSecond[f.figure] = atLeast(admissions, 0)
		}
	}
	return shrinking(ctx, stdout, dir, figures)
}

// shrinkMutant is the module mutant whose kinds of disagreement the bench
// shrinks on envtest: what a user waits for once fuzz has found something.
const shrinkMutant = "mutant/partial-apply"

// shrinking fuzzes shrinkMutant on envtest with every kind shrunk and
// written (--out), and reads how long each kind's shrinking took from the
// run's fuzz.json.
func shrinking(ctx context.Context, stdout io.Writer, dir string, figures *Figures) error {
	const cases = 150
	report := filepath.Join(dir, "shrink")
	u, err := runSelf(ctx, "fuzz", "--backend", "envtest", "--module", shrinkMutant, "--cases", fmt.Sprint(cases), "--seed", "7",
		"--out", filepath.Join(report, "features"), "--report-dir", report)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) { // 1: it disagreed, as a mutant must
		return err
	}
	sum, err := readFuzzSummary(report)
	if err != nil {
		return fmt.Errorf("shrinking %s: %w", shrinkMutant, err)
	}
	var seconds []float64
	for _, d := range sum.Disagreements {
		if d.ShrinkSeconds > 0 {
			seconds = append(seconds, d.ShrinkSeconds)
		}
	}
	if len(seconds) == 0 {
		return fmt.Errorf("shrinking %s: no kind of disagreement was shrunk in %d cases", shrinkMutant, cases)
	}
	mean := 0.0
	for _, s := range seconds {
		mean += s / float64(len(seconds))
	}
	fmt.Fprintf(stdout, "%-52s %12s %10s %9.0f MiB\n", fmt.Sprintf("  fuzz %s on envtest, %d cases, %d kinds shrunk", shrinkMutant, cases, len(seconds)),
		fmt.Sprintf("%.1fs/kind", mean), u.wall.Round(time.Millisecond), float64(u.peakRSS)/(1<<20))
	figures.ShrinkSecondsPerKind = &ShrinkFigure{Mutant: shrinkMutant, Kinds: len(seconds), Mean: atMost(mean, shrinkSecondsGoal), Max: round3(slices.Max(seconds))}
	return nil
}

// readFuzzSummary reads the fuzz.json a fuzz run wrote into dir
// (--report-dir).
func readFuzzSummary(dir string) (fuzz.Summary, error) {
	var sum fuzz.Summary
	data, err := os.ReadFile(filepath.Join(dir, "fuzz.json"))
	if err != nil {
		return sum, err
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		return sum, fmt.Errorf("fuzz.json: %w", err)
	}
	if sum.CasesSeconds <= 0 || sum.Cases == 0 {
		return sum, fmt.Errorf("fuzz.json: %d cases in %gs: no pace to read", sum.Cases, sum.CasesSeconds)
	}
	return sum, nil
}

// freePort is a TCP port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// applyScaling prints what presetsim apply takes over generated manifests
// of 11,800 and 118,000 pods (about 5 MB and 50 MB), and over one pod and a
// preset of 5,000, 10,000 and 20,000 env vars: time should grow linearly
// with the input, memory far less than the input's decoded objects.
func applyScaling(ctx context.Context, stdout io.Writer, dir string, figures *Figures) error {
	figures.Apply = &ApplyFigures{SecondsPerItems: map[string]Ratio{}}
	for _, pods := range []int{11800, 118000} {
		file := filepath.Join(dir, fmt.Sprintf("apply-%d.yaml", pods))
		if err := os.WriteFile(file, []byte(generatedManifests(pods)), 0o644); err != nil {
			return err
		}
		info, err := os.Stat(file)
		if err != nil {
			return err
		}
		u, err := runSelf(ctx, "apply", "-f", file)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-52s %12.0f %10s %9.0f MiB\n", fmt.Sprintf("  apply, %d pods (%.0f MB), pods", pods, float64(info.Size())/1e6),
			float64(pods)/u.wall.Seconds(), u.wall.Round(time.Millisecond), float64(u.peakRSS)/(1<<20))
		a := figures.Apply
		a.Pods, a.MB = pods, round3(float64(info.Size())/1e6)
		a.Seconds, a.PeakMiB = atMost(u.wall.Seconds(), applySecondsGoal), atMost(float64(u.peakRSS)/(1<<20), applyPeakMiBGoal)
	}
	for _, items := range []int{5000, 10000, 20000} {
		file := filepath.Join(dir, fmt.Sprintf("apply-items-%d.yaml", items))
		if err := os.WriteFile(file, []byte(largePreset(items)), 0o644); err != nil {
			return err
		}
		u, err := runSelf(ctx, "apply", "-f", file)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-52s %12.0f %10s %9.0f MiB\n", fmt.Sprintf("  apply, a preset of %d env vars, items", items),
			float64(items)/u.wall.Seconds(), u.wall.Round(time.Millisecond), float64(u.peakRSS)/(1<<20))
		// Linear in items: the goal of 20,000 scaled to the count.
		figures.Apply.SecondsPerItems[fmt.Sprint(items)] = atMost(u.wall.Seconds(), applyItemsSecondsGoal*float64(items)/20000)
	}
	return nil
}

// generatedManifests are ten presets over two namespaces and pods of
// seven tiers, about 420 bytes of YAML each, half of them selected.
func generatedManifests(pods int) string {
	var b strings.Builder
	for _, ns := range []string{"default", "team-a"} {
		for i := range 5 {
			fmt.Fprintf(&b, `apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata:
  name: preset-%[1]d
  namespace: %[2]s
spec:
  selector:
    matchLabels:
      tier: t%[1]d
  env:
  - name: VAR_%[1]d
    value: "value-%[1]d"
  volumeMounts:
  - name: vol-%[1]d
    mountPath: /mnt/%[1]d
  volumes:
  - name: vol-%[1]d
    emptyDir: {}
---
`, i, ns)
		}
	}
	for j := range pods {
		ns := []string{"default", "team-a"}[j%2]
		fmt.Fprintf(&b, `apiVersion: v1
kind: Pod
metadata:
  name: pod-%[1]d
  namespace: %[2]s
  labels:
    tier: t%[3]d
    app: app-%[1]d
  annotations:
    description: "a pod of the generated load, made to weigh what a real manifest weighs in bytes and in fields"
spec:
  containers:
  - name: main
    image: registry.example.com/team/app:%[1]d
    env:
    - name: OWN_%[4]d
      value: "own-%[1]d"
    ports:
    - containerPort: 8080
---
`, j, ns, j%7, j%13)
	}
	return b.String()
}

// largePreset is one preset of items env vars and a pod it selects.
func largePreset(items int) string {
	var b strings.Builder
	b.WriteString("apiVersion: settings.k8s.io/v1alpha1\nkind: PodPreset\nmetadata:\n  name: large\nspec:\n  selector: {}\n  env:\n")
	for i := range items {
		fmt.Fprintf(&b, "  - name: VAR_%d\n    value: \"%d\"\n", i, i)
	}
	b.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: i\n")
	return b.String()
}
