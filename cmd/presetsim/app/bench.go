package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/steps"
)

// minimalFeature is the smallest useful scenario, run many times to
// measure what the harness costs per scenario.
const minimalFeature = `Feature: harness overhead
  Scenario: one pod
    When I create the pod:
      """
      apiVersion: v1
      kind: Pod
      metadata:
        name: p
      spec:
        containers:
          - name: c
            image: i
      """
    Then the pod "p" should be as submitted
`

// bench measures the figures of docs/performance.md from one run.
func bench(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pods := fs.Int("pods", 200, "pods created per latency measurement")
	repeat := fs.Int("scenarios", 40, "runs of the minimal scenario per overhead measurement")
	features := fs.String("features", "features", "feature files for the whole-suite timings")
	if err := fs.Parse(args); err != nil {
		return ExitError{Code: 2}
	}
	interrupts := harness.CatchSignals(ctx)
	defer interrupts.Release()
	w, err := harness.Start(interrupts.Context(), harness.Options{Progress: stderr})
	if err != nil {
		return err
	}
	interrupts.OnSignal(w.Stop)
	defer w.Stop()
	fmt.Fprintf(stdout, "control-plane start (etcd, apiserver, controllers, scheduler, nodes, CRD, webhook): %s\n\n",
		w.Started.Round(time.Millisecond))

	dir, err := os.MkdirTemp("", "presetsim-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var minimal []string
	for i := 0; i < *repeat; i++ {
		p := filepath.Join(dir, fmt.Sprintf("minimal-%03d.feature", i))
		if err := os.WriteFile(p, []byte(minimalFeature), 0o644); err != nil {
			return err
		}
		minimal = append(minimal, p)
	}
	fmt.Fprintf(stdout, "%-34s %10s %10s %10s\n", "per scenario (minimal: 1 pod)", "median", "p95", "wall")
	for _, c := range []int{1, steps.DefaultConcurrency} {
		start := time.Now()
		status, t := steps.Run(w, steps.SuiteOptions{Paths: minimal, Format: "progress", Output: io.Discard, Concurrency: c})
		if status != 0 {
			return fmt.Errorf("the minimal scenario failed")
		}
		d := durations(t.List())
		fmt.Fprintf(stdout, "%-34s %10s %10s %10s\n", fmt.Sprintf("  concurrency %d", c), pct(d, 50), pct(d, 95), time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintf(stdout, "\n%-34s %10s %10s %10s\n", "whole suite ("+*features+")", "median", "p95", "wall")
	var wall []time.Duration
	for _, c := range []int{1, steps.DefaultConcurrency} {
		// A fresh control plane per run: features pin Service cluster IPs,
		// which can be allocated once per API server.
		sw, err := harness.Start(interrupts.Context(), harness.Options{})
		if err != nil {
			return err
		}
		interrupts.OnSignal(func() error { return errors.Join(sw.Stop(), w.Stop()) })
		start := time.Now()
		status, t := steps.Run(sw, steps.SuiteOptions{Paths: []string{*features}, Format: "progress", Output: io.Discard, Concurrency: c})
		if err := sw.Stop(); err != nil {
			return err
		}
		interrupts.OnSignal(w.Stop)
		if status != 0 {
			return fmt.Errorf("the suite failed with concurrency %d", c)
		}
		wall = append(wall, time.Since(start))
		d := durations(t.List())
		fmt.Fprintf(stdout, "%-34s %10s %10s %10s\n", fmt.Sprintf("  concurrency %d (%d scenarios)", c, len(d)), pct(d, 50), pct(d, 95), wall[len(wall)-1].Round(time.Millisecond))
	}
	fmt.Fprintf(stdout, "  parallel speed-up: %.2fx\n", wall[0].Seconds()/wall[1].Seconds())

	fmt.Fprintf(stdout, "\n%-34s %10s %10s\n", fmt.Sprintf("pod create (%d pods, one by one)", *pods), "p50", "p99")
	for _, c := range []struct {
		name              string
		webhook           bool
		presets, matching int
	}{
		{"  without the webhook", false, 0, 0},
		{"  webhook, 1 preset", true, 1, 1},
		{"  webhook, 100 presets, 1 matching", true, 100, 1},
		{"  webhook, 100 presets, all matching", true, 100, 100},
	} {
		lat, err := podLatency(interrupts.Context(), w, c.webhook, c.presets, c.matching, *pods)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-34s %10s %10s\n", c.name, pct(lat, 50), pct(lat, 99))
	}

	fmt.Fprintf(stdout, "\n%-34s %10s\n", "merge engine (select + apply)", "pods/s")
	for _, n := range []int{1, 10, 100} {
		fmt.Fprintf(stdout, "%-34s %10.0f\n", fmt.Sprintf("  %d presets", n), mergeRate(n))
	}
	return nil
}

// podLatency creates pods one by one in a fresh namespace of the run, with
// presets of which the first matching select them, and returns each
// create's latency.
func podLatency(ctx context.Context, w *harness.World, webhook bool, presets, matching, n int) ([]time.Duration, error) {
	labels := map[string]string{harness.RunLabel: w.RunID}
	if webhook {
		labels[harness.AdmissionLabel] = w.RunID
	}
	ns := fmt.Sprintf("bench-%s-%d-%d", w.RunID, presets, time.Now().UnixNano()%100000)
	if _, err := w.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	for time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if _, err := w.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{}); err == nil {
			break
		}
	}
	var last string
	for i := 0; i < presets; i++ {
		pp := benchPreset(ns, i)
		pp.ResourceVersion = ""
		if i >= matching {
			pp.Spec.Selector.MatchLabels = map[string]string{"role": "other"}
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pp)
		if err != nil {
			return nil, err
		}
		created, err := w.Dynamic.Resource(v1alpha1.GroupVersionResource()).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: u}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		last = created.GetResourceVersion()
		if err := w.WaitForPreset(ctx, ns, pp.Name, last); err != nil {
			return nil, err
		}
	}
	out := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%04d", i), Labels: map[string]string{"role": "bench"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
		}
		start := time.Now()
		got, err := w.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		out = append(out, time.Since(start))
		if webhook && len(got.Annotations) != matching {
			return nil, fmt.Errorf("pod %s got %d preset annotations, want %d", got.Name, len(got.Annotations), matching)
		}
	}
	return out, nil
}

func benchPreset(ns string, i int) *v1alpha1.PodPreset {
	name := fmt.Sprintf("preset-%03d", i)
	return &v1alpha1.PodPreset{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: "1"},
		Spec: v1alpha1.PodPresetSpec{
			Selector:     metav1.LabelSelector{MatchLabels: map[string]string{"role": "bench"}},
			Env:          []corev1.EnvVar{{Name: fmt.Sprintf("VAR_%03d", i), Value: "x"}},
			Volumes:      []corev1.Volume{{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			VolumeMounts: []corev1.VolumeMount{{Name: name, MountPath: "/mnt/" + name}},
		},
	}
}

// mergeRate measures pods/s through merge.Select and merge.Apply with n
// matching presets, with the testing package's benchmark loop.
func mergeRate(n int) float64 {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "website", Labels: map[string]string{"role": "bench"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "i"}, {Name: "sidecar", Image: "i"}}},
	}
	presets := make([]*v1alpha1.PodPreset, n)
	for i := range presets {
		presets[i] = benchPreset("", i)
	}
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			selected, _ := merge.Select(pod, presets)
			merge.Apply(pod, selected)
		}
	})
	return float64(r.N) / r.T.Seconds()
}

func durations(ts []steps.Timing) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t.Duration
	}
	return out
}

// pct is the p-th percentile (nearest rank), rounded for display.
func pct(d []time.Duration, p int) string {
	if len(d) == 0 {
		return "-"
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (p*len(s)+99)/100 - 1
	if i < 0 {
		i = 0
	}
	v := s[i]
	if v < 10*time.Millisecond {
		return strings.TrimSpace(fmt.Sprintf("%.2fms", float64(v.Microseconds())/1000))
	}
	return v.Round(time.Millisecond).String()
}
