package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	envtestbackend "presetsim.dev/presetsim/backends/envtest"
	offlinebackend "presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/implementation/policy"
	"presetsim.dev/presetsim/internal/scenario"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/steps"
)

// Options configure a differential run.
type Options struct {
	// Paths of feature files or folders; "features" when empty.
	Paths []string
	// FS holds the feature files; the operating system's when nil.
	FS fs.FS
	// Tags filters scenarios by tag expression.
	Tags string
	// Module is the in-process admission module; "reference" when empty.
	Module string
	// Modules is the registry Module is looked up in; module.NewRegistry()
	// when nil.
	Modules *module.Registry
	// Policy, when set, tests the presets compiled into policies (package
	// internal/implementation/policy, profile profiles/policy.yaml)
	// instead of Module: evaluated offline by the API server's plug-ins run
	// in-process, on envtest by the API server.
	Policy bool
	// BinDir holds the control-plane binaries; found as for a run when empty.
	BinDir string
	// Progress receives start-up progress and the suites' output; io.Discard when nil.
	Progress io.Writer
	// OnSignal, when set, is given the stop of each World once it is up,
	// and nil once it is stopped, before the next starts
	// (interrupt.Interrupts.OnSignal: a signal while the envtest World
	// starts then only cancels ctx, and its Start stops what it started).
	OnSignal func(stop func() error)
}

// Missing is a scenario's outcome on a backend it did not run on; it is no
// outcome a run can come to.
const Missing outcome.Outcome = "missing"

// Scenario is one scenario's result on both backends.
type Scenario struct {
	Name string
	// Offline and Envtest are the outcomes on each backend; Missing when
	// the scenario did not run there.
	Offline, Envtest outcome.Outcome
	// Unsupported is why the offline backend could not run it.
	Unsupported string
	// Failures holds the failure text of each backend that failed it.
	Failures []string
	// Differences lists what differs between the backends; empty when
	// nothing does or the scenario was not compared.
	Differences []string
}

// Report is the result of a differential run.
type Report struct {
	Scenarios []Scenario
}

// Differences counts the scenarios that differ between the backends.
func (r *Report) Differences() int {
	n := 0
	for _, s := range r.Scenarios {
		if len(s.Differences) > 0 {
			n++
		}
	}
	return n
}

// Failures counts the scenarios that failed on either backend.
func (r *Report) Failures() int {
	n := 0
	for _, s := range r.Scenarios {
		if len(s.Failures) > 0 {
			n++
		}
	}
	return n
}

// Compared counts the scenarios run on both backends.
func (r *Report) Compared() int {
	n := 0
	for _, s := range r.Scenarios {
		if s.Offline != outcome.Unsupported {
			n++
		}
	}
	return n
}

// Run runs the features offline, then on envtest, and compares.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	suite := steps.SuiteOptions{Paths: opts.Paths, FS: opts.FS, Tags: opts.Tags, Format: "progress", Output: opts.Progress, KeepPods: true}

	if opts.Modules == nil {
		opts.Modules = module.NewRegistry()
	}
	impl, prof, err := opts.implementation()
	if err != nil {
		return nil, err
	}
	offline, err := harness.Start(ctx, harness.Options{Backend: offlinebackend.New(), Implementation: impl, Profile: prof, Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	onSignal := func(stop func() error) {
		if opts.OnSignal != nil {
			opts.OnSignal(stop)
		}
	}
	onSignal(offline.Stop)
	_, offlineRun := steps.Run(offline, suite)
	if err := offline.Stop(); err != nil {
		return nil, fmt.Errorf("unable to stop the offline backend: %w", err)
	}
	onSignal(nil)

	if impl, prof, err = opts.implementation(); err != nil {
		return nil, err
	}
	envtest, err := harness.Start(ctx, harness.Options{Backend: envtestbackend.New(envtestbackend.Options{BinDir: opts.BinDir}), Implementation: impl, Profile: prof, Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	defer envtest.Stop()
	onSignal(envtest.Stop)
	_, envtestRun := steps.Run(envtest, suite)
	return Compare(ctx, envtest, offlineRun.List(), envtestRun.List())
}

// implementation is a new instance of what is tested, and its profile (nil:
// the canonical one).
func (opts Options) implementation() (implementation.Implementation, *profile.Profile, error) {
	if opts.Policy {
		prof, err := profile.Shipped("policy.yaml")
		return policy.New(policy.Options{}), prof, err
	}
	impl, err := module.Implementation(opts.Modules, opts.Module)
	return impl, nil, err
}

// Compare pairs the scenarios of an offline and an envtest run by name and
// compares them; ref is the envtest World, which gives offline pods their
// API-server defaults.
func Compare(ctx context.Context, ref *harness.World, offline, envtest []outcome.Scenario) (*Report, error) {
	byName := map[string]outcome.Scenario{}
	for _, t := range envtest {
		byName[t.Scenario] = t
	}
	report := &Report{}
	for _, off := range offline {
		on, ok := byName[off.Scenario]
		s := Scenario{Name: off.Scenario, Offline: off.Outcome(), Envtest: on.Outcome(), Unsupported: off.Unsupported}
		if !ok {
			s.Envtest = Missing
			s.Differences = []string{"the scenario did not run on envtest"}
		}
		for _, t := range []struct {
			backend string
			run     outcome.Scenario
		}{{"offline", off}, {"envtest", on}} {
			if t.run.Failed {
				s.Failures = append(s.Failures, fmt.Sprintf("%s: %v", t.backend, t.run.Err))
			}
		}
		switch {
		case !ok || s.Offline == outcome.Unsupported:
		case s.Offline != s.Envtest:
			s.Differences = append(s.Differences, fmt.Sprintf("outcome: %s offline, %s on envtest", s.Offline.Words(), s.Envtest.Words()))
		default:
			diffs, err := comparePods(ctx, ref, off.Pods, on.Pods)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", off.Scenario, err)
			}
			s.Differences = append(s.Differences, diffs...)
		}
		report.Scenarios = append(report.Scenarios, s)
		delete(byName, off.Scenario)
	}
	for name, on := range byName {
		report.Scenarios = append(report.Scenarios, Scenario{Name: name, Offline: Missing, Envtest: on.Outcome(),
			Differences: []string{"the scenario did not run offline"}})
	}
	sort.Slice(report.Scenarios, func(i, j int) bool { return report.Scenarios[i].Name < report.Scenarios[j].Name })
	return report, nil
}

// comparePods pairs the pods of both runs and compares each pair.
func comparePods(ctx context.Context, ref *harness.World, offline, envtest []corev1.Pod) ([]string, error) {
	off, on := pairKeys(offline), pairKeys(envtest)
	keys := map[string]bool{}
	for k := range off {
		keys[k] = true
	}
	for k := range on {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var diffs []string
	for _, k := range sorted {
		o, inOff := off[k]
		e, inOn := on[k]
		switch {
		case !inOff:
			diffs = append(diffs, fmt.Sprintf("pod %s exists only on envtest", k))
		case !inOn:
			diffs = append(diffs, fmt.Sprintf("pod %s exists only offline", k))
		default:
			if err := scenario.ComparePod(ctx, ref, comparable(o), comparable(e)); err != nil {
				diffs = append(diffs, fmt.Sprintf("pod %s (want: offline, got: envtest):\n%v", k, err))
			}
		}
	}
	return diffs, nil
}

// pairKeys names each pod for pairing: namespace/name, or, for a pod a
// controller named, namespace/Kind/owner#i with i its rank by content.
func pairKeys(pods []corev1.Pod) map[string]*corev1.Pod {
	out := map[string]*corev1.Pod{}
	groups := map[string][]*corev1.Pod{}
	for i := range pods {
		p := &pods[i]
		owner := metav1.GetControllerOf(p)
		if owner == nil || p.GenerateName == "" {
			out[p.Namespace+"/"+p.Name] = p
			continue
		}
		g := fmt.Sprintf("%s/%s/%s", p.Namespace, owner.Kind, owner.Name)
		groups[g] = append(groups[g], p)
	}
	for g, ps := range groups {
		sort.SliceStable(ps, func(i, j int) bool { return fingerprint(ps[i]) < fingerprint(ps[j]) })
		for i, p := range ps {
			out[fmt.Sprintf("%s#%d", g, i)] = p
		}
	}
	return out
}

// fingerprint is a pod's labels, preset annotations and containers, as JSON.
func fingerprint(p *corev1.Pod) string {
	c := comparable(p)
	b, _ := json.Marshal([]any{c.Labels, c.Annotations, c.Spec.Containers, c.Spec.InitContainers})
	return string(b)
}

// comparable returns a copy of the pod with the values of the
// podpreset-<name> annotations (resourceVersions) replaced by a placeholder.
func comparable(p *corev1.Pod) *corev1.Pod {
	c := p.DeepCopy()
	for k := range c.Annotations {
		if strings.HasPrefix(k, merge.AnnotationPrefix) {
			c.Annotations[k] = "<resourceVersion>"
		}
	}
	return c
}

// Print writes the report as a table and a list of differences.
func Print(w io.Writer, r *Report) {
	fmt.Fprintf(w, "%-14s %-14s %s\n", "OFFLINE", "ENVTEST", "SCENARIO")
	for _, s := range r.Scenarios {
		mark := ""
		if len(s.Differences) > 0 {
			mark = "  <- differs"
		}
		fmt.Fprintf(w, "%-14s %-14s %s%s\n", s.Offline.Words(), s.Envtest.Words(), s.Name, mark)
	}
	for _, s := range r.Scenarios {
		for _, d := range s.Differences {
			fmt.Fprintf(w, "\nDIFFERENCE %s\n  %s\n", s.Name, strings.ReplaceAll(d, "\n", "\n  "))
		}
		for _, f := range s.Failures {
			fmt.Fprintf(w, "\nFAILED %s\n  %s\n", s.Name, strings.ReplaceAll(f, "\n", "\n  "))
		}
	}
	reasons := map[string]int{}
	for _, s := range r.Scenarios {
		if s.Unsupported != "" {
			reasons[s.Unsupported]++
		}
	}
	if len(reasons) > 0 {
		fmt.Fprintf(w, "\nnot compared, as the offline backend cannot run them:\n")
		for _, reason := range slices.Sorted(maps.Keys(reasons)) {
			fmt.Fprintf(w, "  %2d scenarios: %s\n", reasons[reason], reason)
		}
	}
	fmt.Fprintf(w, "\n%d scenarios: %d compared, %d unsupported offline, %d differ, %d failed\n",
		len(r.Scenarios), r.Compared(), len(r.Scenarios)-r.Compared(), r.Differences(), r.Failures())
}
