package steps_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/backend/offline"
	"presetsim.dev/presetsim/internal/suitecheck"
	"presetsim.dev/presetsim/steps"
)

// TestMemoryPerScenario runs 2,000 generated scenarios offline and
// measures the live heap (after a forced collection) when a tenth of them
// have finished and when nine tenths have: what it gains in between is
// what finished scenarios keep while the run goes on. Their objects go
// with them (offline, backend.Ephemeral) and their step handlers keep
// nothing; what remains is godog's store of step results, which its
// formatters read when the run ends (about 10 KiB a scenario, measured
// 2026-11-25), and the run's own record of each scenario (its checks, for
// the report). Before the step expressions were compiled once and the
// handlers stopped holding their scenario's registry, 2,000 scenarios
// reached 987 MB RSS; the bound, 24 KiB a finished scenario, leaves room
// for a busy host (one run measured 16.8 KiB beside a mutation run).
func TestMemoryPerScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2,000 scenarios; skipped with -short")
	}
	const n = 2000
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
	status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{path}, Format: "progress", Output: out})
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
	if per > 24*1024 {
		t.Errorf("each finished scenario keeps %.1f KiB while the run goes on, want at most 24 KiB", per/1024)
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
	if err := suitecheck.Check(suitecheck.Options{Paths: []string{"../features"}, Format: "pretty", Concurrency: 1, Steps: steps.Expressions(), Manifests: steps.ManifestExpressions()}); err != nil {
		t.Error(err)
	}
}
