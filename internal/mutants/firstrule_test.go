package mutants_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/rule"
	"presetsim.dev/presetsim/steps"
)

// TestTemplatesChangedNamed: on a real control plane, a module that
// applies presets to the pod templates of the workloads it is sent, judged
// as if its registration sent it them (backend.UnsubscribedFail), fails
// the workload features with R2.6 named first, at the step that shows the
// changed template: a Deployment's rollout whose new ReplicaSet the module
// changed (so that the Deployment never settles) fails at once, not after
// the harness's wait for pods.
func TestTemplatesChangedNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd, kube-apiserver and kube-controller-manager; skipped with -short")
	}
	impl, err := mutants.Implementation(mutants.Prefix + "mutates-templates")
	if err != nil {
		t.Fatal(err)
	}
	w, err := harness.Start(context.Background(), harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: impl, Unsubscribed: backend.UnsubscribedFail})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	_, timings := steps.Run(w, steps.SuiteOptions{Paths: []string{"../../features/deployment.feature", "../../features/replicaset.feature"}, Format: "progress", Output: io.Discard})
	failed := 0
	for _, s := range timings.List() {
		if !s.Failed {
			continue
		}
		failed++
		if rules := s.FailedRules(); len(rules) == 0 || rules[0] != rule.R2_6 {
			t.Errorf("%s names %v first, want %s: %v", s.Scenario, rules, rule.R2_6, s.Err)
		}
		if s.Err != nil && strings.Contains(s.Err.Error(), " after "+w.Timeouts.Wait.String()) {
			t.Errorf("%s failed at the end of the harness's wait, not at the changed template: %v", s.Scenario, s.Err)
		}
	}
	if failed < 3 {
		t.Errorf("%d scenarios failed, want the three whose workloads the module is sent: a Deployment's and a ReplicaSet's creation, and the Deployment's rollout", failed)
	}
}

// TestDataLossNamedFirst: offline, a module that takes some of a pod's
// own items away on a conflict fails every scenario it fails with R4.4
// named first, whatever the scenario is about (a second pod told of the
// same conflict, R6.3; a ReplicaSet's pods, R2.6, which no model of an
// admission judges, the scenario having submitted the ReplicaSet).
func TestDataLossNamedFirst(t *testing.T) {
	for _, name := range []string{"wipes-env-on-conflict", "conflict-overrides"} {
		t.Run(name, func(t *testing.T) {
			failed := 0
			for _, s := range runOffline(t, mutants.Prefix+name, harness.Options{}) {
				if !s.Failed {
					continue
				}
				failed++
				if rules := s.FailedRules(); len(rules) == 0 || rules[0] != rule.R4_4 {
					t.Errorf("%s names %v first, want %s", s.Scenario, rules, rule.R4_4)
				}
			}
			if failed == 0 {
				t.Error("the mutant fails no scenario")
			}
		})
	}
}
