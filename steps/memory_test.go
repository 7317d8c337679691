package steps_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend/offline"
	"presetsim.dev/presetsim/steps"
	"presetsim.dev/presetsim/steps/suitecheck"
)

// TestMemoryPerScenario runs 200 and then 2,000 generated scenarios
// offline and checks what each finished scenario keeps in memory while
// the run goes on: its objects go with it (offline), so what godog keeps
// per scenario (its step results, for the formatters, until the run ends)
// is all that remains: about 22 KiB. While every step's closure held its
// scenario's whole step registry, a scenario kept 43 KiB (and, before the
// step expressions were compiled once, more: 2,000 scenarios reached
// 987 MB RSS, not measured by this test); the bound is 32 KiB.
func TestMemoryPerScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2,200 scenarios; skipped with -short")
	}
	w := startWorld(t, harness.Options{Backend: offline.New()})
	// The most live heap (after a forced collection) while n scenarios run.
	peak := func(n int) uint64 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("many-%d.feature", n))
		if err := os.WriteFile(path, []byte(manyScenarios(n)), 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		max := make(chan uint64)
		go func() {
			var most uint64
			for {
				runtime.GC()
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				most = maxOf(most, m.HeapAlloc)
				select {
				case <-done:
					max <- most
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		status, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{path}, Format: "progress", Output: io.Discard})
		close(done)
		most := <-max
		if status != 0 || len(timings.List()) != n {
			t.Fatalf("status %d with %d of %d scenarios", status, len(timings.List()), n)
		}
		return most
	}
	small, large := peak(200), peak(2000)
	per := (float64(large) - float64(small)) / 1800
	t.Logf("live heap at most %d KiB while 200 scenarios run, %d KiB while 2,000 do: %.1f KiB per scenario", small>>10, large>>10, per/1024)
	if per > 32*1024 {
		t.Errorf("each finished scenario keeps %.1f KiB while the run goes on, want at most 32 KiB", per/1024)
	}
}

func maxOf(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
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
// harness defines (run refuses a suite that has an undefined step).
func TestSuiteStepsDefined(t *testing.T) {
	if err := suitecheck.Check(suitecheck.Options{Paths: []string{"../features"}, Format: "pretty", Concurrency: 1, Steps: steps.Expressions()}); err != nil {
		t.Error(err)
	}
}
