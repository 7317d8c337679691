//go:build mutation

package policy_test

import (
	"context"
	"os"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/fuzz"
	policyimpl "presetsim.dev/presetsim/internal/implementation/policy"
	"presetsim.dev/presetsim/internal/suitetest"
	"presetsim.dev/presetsim/rule"
)

// TestEnvtestPolicySuite is the test make mutation's policy group runs
// against every mutant of this package: the feature suite on envtest
// against the presets compiled into MutatingAdmissionPolicies, under the
// policy's profile.
func TestEnvtestPolicySuite(t *testing.T) {
	if os.Getenv("PRESETSIM_BIN_DIR") == "" {
		t.Skip("PRESETSIM_BIN_DIR is not set: the policy needs a real API server (make mutation sets it)")
	}
	suitetest.Run(t, harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: policyimpl.New(policyimpl.Options{}), Profile: policyProfile(t)}, "../../features")
}

// Generated cases judge a mutant of the group "policy-fuzz": how many, of
// which seed. Offline the policy runs about ten cases a second on two
// cores, so a mutant that lives costs twenty seconds of cases, a minute
// with its build; one killed stops at its first disagreeing case.
const (
	fuzzCases = 200
	fuzzSeed  = 1
)

// TestOfflinePolicyFuzz is the test make mutation's policy-fuzz group runs
// against every mutant of this package: generated cases (presetsim fuzz)
// on the offline backend, which evaluates the compiled policies with
// k8s.io/apiserver's own plug-ins, against the presets compiled into
// MutatingAdmissionPolicies under the policy's profile. The mutant is
// killed by the first case that disagrees with the model.
func TestOfflinePolicyFuzz(t *testing.T) {
	// As the presetsim command does (docs/policy.md): the plug-ins
	// compile a written policy within 10ms, not a second.
	defer generic.SetPolicyRefreshIntervalForTests(10 * time.Millisecond)()
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New(), Implementation: policyimpl.New(policyimpl.Options{}), Profile: policyProfile(t),
		Unsubscribed: backend.UnsubscribedFail})
	if err != nil {
		t.Fatalf("unable to start the offline backend: %v", err)
	}
	defer func() {
		if err := w.Stop(); err != nil {
			t.Errorf("stopping the backend: %v", err)
		}
	}()
	sum, err := fuzz.Run(context.Background(), w, fuzz.Options{Cases: fuzzCases, Seed: fuzzSeed, Concurrency: 4, Shrink: -1, StopAtFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range sum.Disagreements {
		t.Errorf("case seed %d disagrees with the model (%s): %s", d.CaseSeed, rule.Join(d.Rules, ", "), d.Summary)
	}
	if len(sum.Disagreements) == 0 && sum.Cases != fuzzCases {
		t.Errorf("%d of the %d cases ran", sum.Cases, fuzzCases)
	}
}

// policyProfile is the policy's profile, as shipped.
func policyProfile(t *testing.T) *profile.Profile {
	t.Helper()
	data, err := presetsim.Profiles.ReadFile("profiles/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse("profiles/policy.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return prof
}
