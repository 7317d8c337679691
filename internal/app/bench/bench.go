package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/registry"
	"presetsim.dev/presetsim/internal/webhook"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/policy"
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

// seedFeatures are the five examples of the original proposal (the
// Makefile's SEED_FEATURES, for make test-kind, lists them too).
var seedFeatures = []string{"features/simple.feature", "features/configmap.feature", "features/replicaset.feature", "features/multiple.feature", "features/conflict.feature"}

// NewCommand is "presetsim bench": it measures the figures of
// docs/performance.md from one run.
func NewCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "measure start-up, per-scenario overhead, pod-create latency, merge rate and scaling",
		Long: `Starts the backend --backend chooses (envtest by default) and measures the figures of docs/performance.md in one run:
start-up, the seed suite, the per-scenario overhead (and the median of each of the minimal
scenario's steps, and of what the runner does after them), the suite one at a time and in parallel,
pod-create latency through the API server with and without webhooks and with the presets
compiled into a MutatingAdmissionPolicy, the merge rate, and the scaling runs (presetsim bench
scaling alone). With --chainsaw, the seed features side by side with chainsaw on one cluster:
the features as chainsaw tests are built in; chainsaw is yours to build.`,
		Example: `  presetsim bench
  presetsim bench --pods 200 --scenarios 10 --no-scaling
  presetsim bench --chainsaw ~/go/bin/chainsaw
  presetsim bench scaling`,
		Args: cli.NoArgs,
	}
	cmd.AddCommand(newScalingCommand(stdout))
	fs := cmd.Flags()
	pods := fs.Int("pods", 1000, "pods created per latency series (the p99 of fewer moves by several ms from run to run)")
	repeat := fs.Int("scenarios", 40, "runs of the minimal scenario per overhead measurement")
	features := fs.String("features", "features", "feature files for the whole-suite timings")
	skipScaling := fs.Bool("no-scaling", false, "leave out the scaling runs (generated scenarios and fuzz cases, a child process each)")
	chainsaw := fs.String("chainsaw", "", "a chainsaw binary (built by hand): time the seed features against it, side by side on one cluster")
	vsRuns := fs.Int("chainsaw-runs", 5, "runs of each command in the side-by-side with --chainsaw")
	jsonPath := fs.String("json", "", "also write every figure beside its goal to this file, as JSON")
	makeTest := fs.Float64("make-test-seconds", 0, "the wall time of the last make test, for the figures (make bench passes the one make test recorded)")
	choice := registry.BindFlags(fs)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *vsRuns < 1 {
			return cli.UsageError(cmd, fmt.Sprintf("--chainsaw-runs must be at least 1, not %d", *vsRuns))
		}
		if *makeTest < 0 {
			return cli.UsageError(cmd, fmt.Sprintf("--make-test-seconds must not be negative, not %v", *makeTest))
		}
		if *chainsaw != "" {
			if _, err := exec.LookPath(*chainsaw); err != nil {
				return cli.UsageError(cmd, fmt.Sprintf("--chainsaw: %v", err))
			}
		}
		choose := func() (registry.Chosen, error) { return choice.Resolve(implementation.Env{}) }
		chosen, err := choose()
		if err != nil {
			return cli.UsageError(cmd, err.Error())
		}
		interrupts, bin, err := cli.Prepare(cmd.Context(), stderr)
		if err != nil {
			return err
		}
		defer interrupts.Release()
		w, err := harness.Start(interrupts.Context(), harness.Options{Backend: chosen.Backend, Implementation: chosen.Implementation,
			Profile: chosen.Profile, Leftovers: registry.Backends(), Progress: stderr})
		if err != nil {
			return err
		}
		interrupts.OnSignal(w.Stop)
		defer w.Stop()
		fmt.Fprintf(stdout, "control-plane start (the %s backend, the CRD, %s): %s\n\n",
			w.Backend, chosen.Implementation.Name(), w.Started.Round(time.Millisecond))

		dir, err := os.MkdirTemp("", "presetsim-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		side := beside{interrupts: interrupts, main: w, choose: choose, stopMain: func() error { return errors.Join(w.Stop(), os.RemoveAll(dir)) }}
		figures := &Figures{}
		var minimalMedian time.Duration
		interrupts.OnSignal(side.stopMain)
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
			// Each series starts on a quiet control plane: the previous
			// one's pods scheduled and started by the simulated nodes, the
			// namespaces made ahead (harness.World.PooledNamespace) made.
			time.Sleep(2 * time.Second)
			start := time.Now()
			status, t := steps.Run(w, steps.SuiteOptions{Paths: minimal, Format: "progress", Output: io.Discard, Concurrency: c})
			if status != 0 {
				return fmt.Errorf("the minimal scenario failed")
			}
			d := durations(t.List())
			fmt.Fprintf(stdout, "%-34s %10s %10s %10s\n", fmt.Sprintf("  concurrency %d", c), pct(d, 50), pct(d, 95), time.Since(start).Round(time.Millisecond))
			printPhases(stdout, t.List())
			if c == 1 {
				minimalMedian = percentile(d, 50)
			}
		}
		fmt.Fprintf(stdout, "\n%-34s %10s %10s %10s\n", "whole suite ("+*features+")", "median", "p95", "wall")
		var wall []time.Duration
		for _, c := range []int{1, steps.DefaultConcurrency} {
			// A fresh control plane per run: features pin Service cluster IPs,
			// which can be allocated once per API server.
			sw, err := side.start(harness.Options{})
			if err != nil {
				return err
			}
			start := time.Now()
			status, t := steps.Run(sw, steps.SuiteOptions{Paths: []string{*features}, Format: "progress", Output: io.Discard, Concurrency: c})
			// The suite's wall time, as run prints it ("suite:"): not the
			// control plane's stop.
			wall = append(wall, time.Since(start))
			if err := side.stop(sw); err != nil {
				return err
			}
			if status != 0 {
				return fmt.Errorf("the suite failed with concurrency %d", c)
			}
			d := durations(t.List())
			fmt.Fprintf(stdout, "%-34s %10s %10s %10s\n", fmt.Sprintf("  concurrency %d (%d scenarios)", c, len(d)), pct(d, 50), pct(d, 95), wall[len(wall)-1].Round(time.Millisecond))
		}
		fmt.Fprintf(stdout, "  parallel speed-up: %.2fx\n", wall[0].Seconds()/wall[1].Seconds())

		began := time.Now()
		sw, err := side.start(harness.Options{})
		if err != nil {
			return err
		}
		status, seedTimings := steps.Run(sw, steps.SuiteOptions{Paths: seedFeatures, Format: "progress", Output: io.Discard})
		seedWall := time.Since(began)
		if err := side.stop(sw); err != nil {
			return err
		}
		if status != 0 {
			return fmt.Errorf("the seed features failed")
		}
		fmt.Fprintf(stdout, "\nseed features (%d files, %d scenarios), start to last scenario: %s (start %s)\n",
			len(seedFeatures), len(seedTimings.List()), seedWall.Round(time.Millisecond), sw.Started.Round(time.Millisecond))
		if *chainsaw != "" {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			err = compareChainsaw(interrupts.Context(), stdout, side, bin, exe, *chainsaw, dir, *vsRuns, figures)
			if err != nil {
				return fmt.Errorf("side by side with chainsaw: %w", err)
			}
		} else {
			fmt.Fprintf(stdout, "\nside by side with chainsaw: not measured (make bench CHAINSAW=path/to/chainsaw, a chainsaw built by hand)\n")
			figures.notMeasured("chainsawRatio: no --chainsaw (a chainsaw built by hand)")
		}

		watched, fresh, err := watchTimes(interrupts.Context(), side, bin, dir, 10, 3)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nrun --watch, a saved 1-scenario feature to its report (10 saves): median %s, max %s; a fresh run of it (start, run, stop; 3 runs): median %s\n",
			pct(watched, 50), pct(watched, 100), pct(fresh, 50))

		fmt.Fprintf(stdout, "\n%-58s %10s %12s %10s %12s\n", fmt.Sprintf("pod create (%d pods each, interleaved)", *pods), "p50", "p50 added", "p99", "p99 added")
		stopFloor, err := serveFloorWebhooks(interrupts.Context(), w)
		if err != nil {
			return err
		}
		defer stopFloor()
		configs := []latencyConfig{
			{name: "  without the webhook"},
			{name: "  a webhook that changes nothing", floor: "allow"},
			{name: "  a webhook that adds an annotation", floor: "annotate"},
		}
		// The reference webhook and the same presets compiled into a
		// MutatingAdmissionPolicy, side by side (docs/performance.md).
		for _, n := range []int{1, 10, 100} {
			for _, matching := range slices.Compact([]int{1, n}) {
				what := fmt.Sprintf("%d presets, %d matching", n, matching)
				if n == 1 {
					what = "1 preset"
				}
				configs = append(configs,
					latencyConfig{name: "  webhook, " + what, webhook: true, presets: n, matching: matching},
					latencyConfig{name: "  policy, " + what, policy: true, presets: n, matching: matching},
					latencyConfig{name: "  policy (Never reinvoked), " + what, policy: true, presets: n, matching: matching,
						reinvocation: admissionregistrationv1.NeverReinvocationPolicy})
			}
		}
		defer deletePolicies(w)
		lat, err := podLatencies(interrupts.Context(), w, configs, *pods, 0)
		if err != nil {
			return err
		}
		for i, c := range configs {
			added50, added99 := "-", "-"
			if i > 0 {
				added50 = (percentile(lat[i], 50) - percentile(lat[0], 50)).Round(10 * time.Microsecond).String()
				added99 = (percentile(lat[i], 99) - percentile(lat[0], 99)).Round(10 * time.Microsecond).String()
			}
			fmt.Fprintf(stdout, "%-58s %10s %12s %10s %12s\n", c.name, pct(lat[i], 50), added50, pct(lat[i], 99), added99)
		}
		figures.latencies(configs, lat, minimalMedian)

		// The policy's CEL budget on the API server (docs/policy.md): a
		// namespace of 1,000 one-item presets that all match.
		budget := latencyConfig{policy: true, presets: 1000, matching: 1000, oneItem: true}
		lat, err = podLatencies(interrupts.Context(), w, []latencyConfig{budget}, 50, len(configs))
		if err != nil {
			return fmt.Errorf("the policy of 1,000 one-item presets: %w", err)
		}
		fmt.Fprintf(stdout, "\npolicy of %d one-item presets, all matching: pod create p50 %s, p99 %s (%d pods)\n",
			budget.presets, pct(lat[0], 50), pct(lat[0], 99), len(lat[0]))

		fmt.Fprintf(stdout, "\n%-34s %10s\n", "merge engine", "pods/s")
		for _, n := range []int{1, 10, 100} {
			fmt.Fprintf(stdout, "%-34s %10.0f\n", fmt.Sprintf("  %d presets", n), mergeRate(n))
		}
		if *skipScaling {
			figures.notMeasured("fuzzCasesPerSecond, apply: --no-scaling")
		} else if err := scaling(interrupts.Context(), stdout, dir, figures); err != nil {
			return err
		}
		if *makeTest > 0 {
			v := atMost(*makeTest, makeTestSecondsGoal)
			figures.MakeTestSeconds = &v
			fmt.Fprintf(stdout, "\nmake test, the last that passed here: %s (goal %s)\n", time.Duration(*makeTest*float64(time.Second)).Round(time.Second), time.Duration(makeTestSecondsGoal)*time.Second)
		} else {
			figures.notMeasured("makeTestSeconds: no --make-test-seconds (make bench passes the time the last make test recorded)")
		}
		if *jsonPath != "" {
			return figures.write(*jsonPath)
		}
		return nil
	}
	return cmd
}

// latencyConfig is one series of pod creates: in a namespace with or
// without the module's webhook, with presets of which the first matching
// select the pods, or in a namespace of one of the floor webhooks.
type latencyConfig struct {
	name              string
	webhook           bool
	policy            bool   // the presets compiled into a MutatingAdmissionPolicy
	floor             string // the floor webhook's path ("allow" or "annotate"), if any
	presets, matching int
	oneItem           bool // each preset adds one env var only
	// reinvocation is the policy's reinvocationPolicy (IfNeeded when empty).
	reinvocation admissionregistrationv1.ReinvocationPolicyType
}

// floorLabel selects the namespaces of a floor webhook: its value is the
// run ID and the webhook's path.
const floorLabel = "presetsim.dev/bench-floor"

// floorPaths are the floor webhooks' paths.
var floorPaths = []string{"allow", "annotate"}

// errNoAPI is the error of a measurement that needs an API server.
var errNoAPI = errors.New("the bench needs an API server (the envtest backend)")

// serveFloorWebhooks serves and registers two webhooks, the floor of what
// any webhook adds to a pod create on this machine, to hold the module's
// figures against: /allow allows every pod unchanged; /annotate adds one
// annotation, as small a change as a mutating webhook can make. A change
// costs the API server more than the call: it applies the patch, runs its
// mutating admission plug-ins again and compares the result (its
// reinvocation rules), whatever the webhook is.
func serveFloorWebhooks(ctx context.Context, w *harness.World) (stop func(), err error) {
	api, ok := w.API()
	if !ok {
		return nil, errNoAPI
	}
	patch, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/metadata/annotations", "value": map[string]string{"presetsim.dev/bench": "floor"}}})
	mux := http.NewServeMux()
	for _, path := range floorPaths {
		mux.HandleFunc("/"+path, func(rw http.ResponseWriter, r *http.Request) {
			var review admissionv1.AdmissionReview
			if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
				http.Error(rw, "malformed AdmissionReview", http.StatusBadRequest)
				return
			}
			review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
			if path == "annotate" {
				pt := admissionv1.PatchTypeJSONPatch
				review.Response.Patch, review.Response.PatchType = patch, &pt
			}
			review.Request = nil
			rw.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(rw).Encode(review)
		})
	}
	srv, err := webhook.Serve("127.0.0.1", mux)
	if err != nil {
		return nil, err
	}
	cfg := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "presetsim-bench-floor-" + w.RunID}}
	for _, path := range floorPaths {
		cfg.Webhooks = append(cfg.Webhooks, webhook.MutatingWebhookConfiguration(webhook.PodConfig{
			Name: path + ".bench.presetsim.dev", URL: srv.URL + "/" + path, CABundle: srv.CABundle,
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{floorLabel: w.RunID + "-" + path}},
		}).Webhooks...)
	}
	if _, err := api.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		_ = srv.Stop(context.Background())
		return nil, err
	}
	return func() {
		_ = api.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), cfg.Name, metav1.DeleteOptions{})
		_ = srv.Stop(context.Background())
	}, nil
}

// podLatencies creates n pods one by one in a fresh namespace per config
// (bench-<run>-<first + index>), taking the configs in turn (pod i of every
// config before pod i+1 of any), so that the API server's and etcd's own
// jitter falls on every series alike, and returns each series' create
// latencies.
func podLatencies(ctx context.Context, w *harness.World, configs []latencyConfig, n, first int) ([][]time.Duration, error) {
	api, ok := w.API()
	if !ok {
		return nil, errNoAPI
	}
	namespaces := make([]string, len(configs))
	for i, c := range configs {
		ns, err := latencyNamespace(ctx, w, first+i, c)
		if err != nil {
			return nil, err
		}
		namespaces[i] = ns
	}
	out := make([][]time.Duration, len(configs))
	for i := 0; i < n; i++ {
		for j, c := range configs {
			// Bound to no node, the pods stay Pending: neither the scheduler
			// nor the simulated kubelets write to them while others are timed.
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%04d", i), Labels: map[string]string{"role": "bench"}},
				Spec:       corev1.PodSpec{NodeName: "presetsim-bench-nowhere", Containers: []corev1.Container{{Name: "c", Image: "i"}}},
			}
			start := time.Now()
			got, err := api.Client.CoreV1().Pods(namespaces[j]).Create(ctx, pod, metav1.CreateOptions{})
			if err != nil {
				return nil, err
			}
			out[j] = append(out[j], time.Since(start))
			if (c.webhook || c.policy) && len(got.Annotations) != c.matching {
				return nil, fmt.Errorf("pod %s got %d preset annotations, want %d", got.Name, len(got.Annotations), c.matching)
			}
		}
	}
	return out, nil
}

// latencyNamespace makes the namespace of one series, with its presets, and
// waits until the module has seen them all.
func latencyNamespace(ctx context.Context, w *harness.World, i int, c latencyConfig) (string, error) {
	api, ok := w.API()
	if !ok {
		return "", errNoAPI
	}
	labels := map[string]string{harness.RunLabel: w.RunID}
	if c.webhook {
		labels[harness.AdmissionLabel] = w.RunID
	}
	if c.floor != "" {
		labels[floorLabel] = w.RunID + "-" + c.floor
	}
	ns := fmt.Sprintf("bench-%s-%d", w.RunID, i)
	if err := w.CreateNamespace(ctx, ns, labels); err != nil {
		return "", err
	}
	var compiled []*v1alpha1.PodPreset
	for p := 0; p < c.presets; p++ {
		pp := benchPreset(ns, p)
		pp.ResourceVersion = ""
		if c.oneItem {
			pp.Spec.Volumes, pp.Spec.VolumeMounts = nil, nil
		}
		if p >= c.matching {
			pp.Spec.Selector.MatchLabels = map[string]string{"role": "other"}
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pp)
		if err != nil {
			return "", err
		}
		created, err := api.Dynamic.Resource(v1alpha1.GroupVersionResource()).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: u}, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		if c.policy {
			pp.ResourceVersion = created.GetResourceVersion()
			compiled = append(compiled, pp)
			continue
		}
		if err := w.WaitForPreset(ctx, ns, pp.Name, created.GetResourceVersion()); err != nil {
			return "", err
		}
	}
	if c.policy {
		if err := installPolicy(ctx, w, ns, compiled, c); err != nil {
			return "", err
		}
	}
	return ns, nil
}

// installPolicy compiles the presets of ns into its policy and binding,
// creates them, and waits until the API server applies them to a dry-run
// pod.
func installPolicy(ctx context.Context, w *harness.World, ns string, presets []*v1alpha1.PodPreset, c latencyConfig) error {
	api, ok := w.API()
	if !ok {
		return errNoAPI
	}
	objs, err := policy.Compile(ns, presets, policy.Options{Reinvocation: c.reinvocation})
	if err != nil {
		return err
	}
	reg := api.Client.AdmissionregistrationV1()
	objs.Policy.Labels[harness.RunLabel] = w.RunID
	objs.Binding.Labels[harness.RunLabel] = w.RunID
	objs.Warning.Labels[harness.RunLabel] = w.RunID
	objs.WarningBinding.Labels[harness.RunLabel] = w.RunID
	// The warning policy too: it is part of what the policy costs a pod.
	if _, err := reg.MutatingAdmissionPolicies().Create(ctx, objs.Policy, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := reg.ValidatingAdmissionPolicies().Create(ctx, objs.Warning, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := reg.MutatingAdmissionPolicyBindings().Create(ctx, objs.Binding, metav1.CreateOptions{}); err != nil {
		return err
	}
	if _, err := reg.ValidatingAdmissionPolicyBindings().Create(ctx, objs.WarningBinding, metav1.CreateOptions{}); err != nil {
		return err
	}
	probe := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Labels: map[string]string{"role": "bench"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}},
	}
	var last string
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := api.Client.CoreV1().Pods(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		last = fmt.Sprintf("%d preset annotations", len(got.Annotations))
		return len(got.Annotations) == c.matching, nil
	})
	if err != nil {
		return fmt.Errorf("the policy of namespace %s does not apply its %d matching presets (last: %s): %w", ns, c.matching, last, err)
	}
	return nil
}

// deletePolicies deletes the policies and bindings installPolicy created.
func deletePolicies(w *harness.World) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	api, ok := w.API()
	if !ok {
		return
	}
	reg := api.Client.AdmissionregistrationV1()
	run := metav1.ListOptions{LabelSelector: harness.RunLabel + "=" + w.RunID}
	_ = reg.MutatingAdmissionPolicyBindings().DeleteCollection(ctx, metav1.DeleteOptions{}, run)
	_ = reg.MutatingAdmissionPolicies().DeleteCollection(ctx, metav1.DeleteOptions{}, run)
	_ = reg.ValidatingAdmissionPolicyBindings().DeleteCollection(ctx, metav1.DeleteOptions{}, run)
	_ = reg.ValidatingAdmissionPolicies().DeleteCollection(ctx, metav1.DeleteOptions{}, run)
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
		presets[i].UID = types.UID(fmt.Sprintf("uid-%d", i))
		presets[i].ResourceVersion = "1"
	}
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			selected, _ := merge.Select(pod, presets)
			merge.Apply(pod, selected)
		}
	})
	return float64(r.N) / r.T.Seconds()
}

func durations(ts []outcome.Scenario) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = t.Duration
	}
	return out
}

// percentile is the p-th percentile (nearest rank) of d, 0 when d is empty.
func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

// pct is the p-th percentile (nearest rank), rounded for display.
func pct(d []time.Duration, p int) string {
	if len(d) == 0 {
		return "-"
	}
	return display(percentile(d, p))
}

// display rounds a duration for the tables: to 10 µs under 10 ms, to the
// millisecond above.
func display(v time.Duration) string {
	if v < 10*time.Millisecond {
		return strings.TrimSpace(fmt.Sprintf("%.2fms", float64(v.Microseconds())/1000))
	}
	return v.Round(time.Millisecond).String()
}
