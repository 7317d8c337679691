package steps_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/suitecheck"
	"presetsim.dev/presetsim/steps"
)

// TestMemoryPerScenario runs 3,000 generated scenarios offline in godog
// runs of 500 (SuiteOptions.ChunkScenarios; 1,000 by default) and measures
// the live heap (after a forced collection) when a tenth of them have
// finished and when nine tenths have, each time 300 scenarios into a
// chunk: what it gains in between is what finished scenarios keep while
// the run goes on. Their objects go with them (offline, backend.Ephemeral),
// their step handlers keep nothing, and godog's store of step results and
// parsed features goes with each chunk; what remains is the run's own
// record of each scenario (its checks, for the report), about 0.4 KiB.
// In one godog run each finished scenario kept 9–17 KiB (measured
// 2026-11-25 and 26); the bound is 4 KiB.
func TestMemoryPerScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 3,000 scenarios; skipped with -short")
	}
	const n, chunk = 3000, 500
	w := startWorld(t, harness.Options{Backend: offline.New()})
	path := filepath.Join(t.TempDir(), "many.feature")
	if err := os.WriteFile(path, []byte(manyScenarios(n)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The progress format prints a dot per passed step: 3 a scenario.
	out := &dotCounter{}
	// The least live heap over the collections forced while the run is
	// between two points: scenarios in flight make any one sample noisy.
	heapBetween := func(from, to int64) chan uint64 {
		c := make(chan uint64, 1)
		go func() {
			defer close(c)
			least := uint64(0)
			for {
				dots := out.dots.Load()
				if dots >= to || out.done.Load() {
					break
				}
				if dots < from {
					time.Sleep(time.Millisecond)
					continue
				}
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if least == 0 || m.HeapAlloc < least {
					least = m.HeapAlloc
				}
			}
			if least > 0 {
				c <- least
			}
		}()
		return c
	}
	early, late := heapBetween(3*n/10, 3*n*15/100), heapBetween(3*n*85/100, 3*n*9/10)
	status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{path}, Format: "progress", Output: out, ChunkScenarios: chunk})
	out.done.Store(true)
	if status != 0 || len(timings.List()) != n {
		t.Fatalf("status %d with %d of %d scenarios", status, len(timings.List()), n)
	}
	a, okA := <-early
	b, okB := <-late
	if !okA || !okB {
		t.Fatal("the run ended before the heap was measured")
	}
	per := (float64(b) - float64(a)) / (0.8 * n)
	t.Logf("live heap %d KiB a tenth of the way through %d scenarios, %d KiB nine tenths: %.1f KiB a finished scenario", a>>10, n, b>>10, per/1024)
	if per > 4*1024 {
		t.Errorf("each finished scenario keeps %.1f KiB while the run goes on, want at most 4 KiB", per/1024)
	}
}

// dotCounter counts the dots the progress format prints (a step each).
type dotCounter struct {
	dots atomic.Int64
	done atomic.Bool
}

func (d *dotCounter) Write(p []byte) (int, error) {
	d.dots.Add(int64(bytes.Count(p, []byte{'.'})))
	return len(p), nil
}

// manyScenarios is a feature of n small scenarios: a preset, a pod, a check.
func manyScenarios(n int) string {
	var b strings.Builder
	b.WriteString("@R3.1\nFeature: many scenarios\n")
	for i := range n {
		fmt.Fprintf(&b, `
  Scenario: case %d
    Given the PodPreset:
      """
      apiVersion: settings.k8s.io/v1alpha1
      kind: PodPreset
      metadata:
        name: p
      spec:
        selector:
          matchLabels:
            app: web
        env:
        - name: A
          value: "%d"
      """
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: web
        labels:
          app: web
      spec:
        containers:
        - name: c
          image: busybox
      """
    Then the pod "web" should have the annotations:
      | key                                           | value    |
      | podpreset.admission.kubernetes.io/podpreset-p | ${rv:p}  |
`, i, i)
	}
	return b.String()
}

// TestSuiteStepsDefined: every step of the curated suite is one the
// harness defines, and every DocString of objects to create decodes (run
// refuses a suite with a mistake of either kind).
func TestSuiteStepsDefined(t *testing.T) {
	if err := suitecheck.Check(suitecheck.Options{Paths: []string{"../features"}, Format: "pretty", Concurrency: 1, Steps: steps.Expressions(), Manifests: steps.ManifestExpressions(), Inputs: steps.InputExpressions()}); err != nil {
		t.Error(err)
	}
}

// TestChunkedRunIsTheWholeRun: the curated suite run offline in chunks of
// 7 scenarios (ChunkScenarios; a chunk is one godog run) comes to the same
// scenarios with the same outcomes, and the same progress output, as in
// one godog run.
func TestChunkedRunIsTheWholeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite twice; skipped with -short")
	}
	w := startWorld(t, harness.Options{Backend: offline.New()})
	run := func(chunk int) (int, []string, string) {
		var out bytes.Buffer
		status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../features"}, Format: "progress", Output: &out, ChunkScenarios: chunk})
		var got []string
		for _, s := range timings.List() {
			got = append(got, fmt.Sprintf("%s → %s", s.Scenario, s.Outcome()))
		}
		slices.Sort(got)
		return status, got, out.String()
	}
	wholeStatus, whole, wholeOut := run(100000)
	chunkStatus, chunked, chunkOut := run(7)
	if wholeStatus != chunkStatus {
		t.Errorf("status %d in chunks, %d in one run", chunkStatus, wholeStatus)
	}
	if len(whole) < 50 {
		t.Fatalf("the suite ran %d scenarios, want the curated suite's", len(whole))
	}
	if !slices.Equal(whole, chunked) {
		t.Errorf("in chunks of 7 the outcomes differ from one run's:\none run: %q\nchunks:  %q", whole, chunked)
	}
	// Scenarios finish in another order: the same marks, in the same rows.
	shape := func(out string) string {
		var b strings.Builder
		for _, c := range ".-FUPA" {
			fmt.Fprintf(&b, "%c×%d ", c, strings.Count(out, string(c)))
		}
		for _, row := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			marks, count, _ := strings.Cut(strings.TrimSpace(row), " ")
			fmt.Fprintf(&b, "[%d marks, %s]", len(marks), strings.TrimSpace(count))
		}
		return b.String()
	}
	if shape(chunkOut) != shape(wholeOut) {
		t.Errorf("the progress output differs:\none run: %s\n%s\nchunks:  %s\n%s", shape(wholeOut), wholeOut, shape(chunkOut), chunkOut)
	}
}
