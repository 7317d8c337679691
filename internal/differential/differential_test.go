package differential_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"presetsim.dev/presetsim/backends/envtest"

	corev1 "k8s.io/api/core/v1"

	offlinebackend "presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/differential"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/steps"
)

// seedFeatures are the five features of the seed document; they must run,
// and agree, on both backends.
var seedFeatures = []string{"simple", "configmap", "replicaset", "multiple", "conflict"}

// TestOfflineAgreesWithEnvtest runs every feature on both backends: no
// scenario may fail or differ, and every scenario of the seed features must
// be compared, not skipped as unsupported. Then it checks that Compare does
// report a changed pod, a missing pod and a changed outcome.
func TestOfflineAgreesWithEnvtest(t *testing.T) {
	if testing.Short() {
		t.Skip("the differential run starts etcd, kube-apiserver and kube-controller-manager; skipped with -short")
	}
	ctx := context.Background()
	interrupts := interrupt.Catch(ctx)
	defer interrupts.Release()
	suite := steps.SuiteOptions{Paths: []string{"../../features"}, Format: "progress", Output: os.Stderr, KeepPods: true}

	offline, err := harness.Start(interrupts.Context(), harness.Options{Backend: offlinebackend.New(), Progress: os.Stderr})
	if err != nil {
		t.Fatalf("unable to start the offline backend: %v", err)
	}
	interrupts.OnSignal(offline.Stop)
	_, offlineRun := steps.Run(offline, suite)
	if err := offline.Stop(); err != nil {
		t.Fatalf("unable to stop the offline backend: %v", err)
	}

	envtest, err := harness.Start(interrupts.Context(), harness.Options{Backend: envtest.New(envtest.Options{}), Progress: os.Stderr})
	if err != nil {
		t.Fatalf("unable to start envtest: %v", err)
	}
	interrupts.OnSignal(envtest.Stop)
	t.Cleanup(func() {
		if err := envtest.Stop(); err != nil {
			t.Errorf("unable to stop envtest: %v", err)
		}
	})
	_, envtestRun := steps.Run(envtest, suite)

	report, err := differential.Compare(ctx, envtest, offlineRun.List(), envtestRun.List())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	differential.Print(&out, report)
	t.Log("\n" + out.String())
	if report.Differences() > 0 || report.Failures() > 0 {
		t.Errorf("%d scenarios differ and %d failed (report above)", report.Differences(), report.Failures())
	}
	seen := map[string]int{}
	for _, s := range report.Scenarios {
		for _, f := range seedFeatures {
			if strings.Contains(s.Name, "/"+f+".feature: ") {
				seen[f]++
				if s.Offline != outcome.Passed || s.Envtest != outcome.Passed {
					t.Errorf("seed scenario %q: offline %s, envtest %s; want both passed", s.Name, s.Offline, s.Envtest)
				}
			}
		}
	}
	for _, f := range seedFeatures {
		if seen[f] == 0 {
			t.Errorf("no scenario of the seed feature %s.feature was compared", f)
		}
	}

	t.Run("a changed pod is a difference", func(t *testing.T) {
		changed := withPods(offlineRun.List(), func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: "ONLY_OFFLINE", Value: "1"})
		})
		r, err := differential.Compare(ctx, envtest, changed, envtestRun.List())
		if err != nil {
			t.Fatal(err)
		}
		if !anyDifference(r, "ONLY_OFFLINE") {
			t.Errorf("no difference names ONLY_OFFLINE")
		}
	})
	t.Run("a missing pod is a difference", func(t *testing.T) {
		var removed string
		changed := withPods(offlineRun.List(), func(p *corev1.Pod) { removed = p.Name; p.Name = "renamed" })
		r, err := differential.Compare(ctx, envtest, changed, envtestRun.List())
		if err != nil {
			t.Fatal(err)
		}
		if !anyDifference(r, "exists only on envtest") || !anyDifference(r, "exists only offline") {
			t.Errorf("renaming pod %s offline was not reported as one pod on each side only", removed)
		}
	})
	t.Run("a changed outcome is a difference", func(t *testing.T) {
		runs := offlineRun.List()
		for i := range runs {
			if runs[i].Outcome() == outcome.Passed {
				runs[i].Failed = true
				break
			}
		}
		r, err := differential.Compare(ctx, envtest, runs, envtestRun.List())
		if err != nil {
			t.Fatal(err)
		}
		if !anyDifference(r, "outcome: failed offline, passed on envtest") {
			t.Errorf("the changed outcome was not reported")
		}
	})
}

// withPods returns a copy of the runs in which the first named pod of the
// first scenario that left one is changed by f.
func withPods(runs []outcome.Scenario, f func(*corev1.Pod)) []outcome.Scenario {
	out := append([]outcome.Scenario(nil), runs...)
	for i := range out {
		for j := range out[i].Pods {
			if out[i].Pods[j].GenerateName == "" && len(out[i].Pods[j].Spec.Containers) > 0 {
				pods := make([]corev1.Pod, len(out[i].Pods))
				for k := range pods {
					pods[k] = *out[i].Pods[k].DeepCopy()
				}
				f(&pods[j])
				out[i].Pods = pods
				return out
			}
		}
	}
	return out
}

func anyDifference(r *differential.Report, text string) bool {
	for _, s := range r.Scenarios {
		for _, d := range s.Differences {
			if strings.Contains(d, text) {
				return true
			}
		}
	}
	return false
}
