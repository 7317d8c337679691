package mutants_test

import (
	"slices"
	"strings"
	"testing"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/outcome"
)

func parseProfile(t *testing.T, yaml string) *profile.Profile {
	t.Helper()
	p, err := profile.Parse("test-profile.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDeclaredDifferences: a module that refuses conflicting pods fails
// R4.2 under the canonical profile, and under a profile that declares
// "conflicts: reject" the same scenarios differ as declared, nothing fails.
func TestDeclaredDifferences(t *testing.T) {
	const module = mutants.Prefix + "conflict-rejects"
	var failedRules []rule.ID
	for _, s := range runOffline(t, module, harness.Options{}) {
		failedRules = append(failedRules, s.FailedRules()...)
	}
	if !slices.Contains(failedRules, rule.R4_2) {
		t.Fatalf("under the canonical profile, %s fails %v, want R4.2 among them", module, failedRules)
	}
	declaring := parseProfile(t, `apiVersion: presetsim.dev/v1alpha1
kind: Profile
metadata: {name: rejects-conflicts}
spec:
  referenceCRD: true
  behaviour: {conflicts: reject}
`)
	var declared int
	for _, s := range runOffline(t, module, harness.Options{Profile: declaring}) {
		if s.Failed {
			t.Errorf("%s fails under a profile declaring conflicts: reject: %v → %v", s.Scenario, s.Err, s.FailedRules())
		}
		if c := s.Declared(); c != nil {
			declared++
			if !strings.Contains(c.Reason, "conflicts: reject") {
				t.Errorf("%s differs, but the reason does not name the declaration: %s", s.Scenario, c.Reason)
			}
		}
	}
	if declared == 0 {
		t.Error("no scenario differs as declared")
	}
}

// TestKubernetes119Profile: the module that plays the 1.19 plug-in passes
// under its profile: every difference is declared or not claimed, and the
// checks of events and warnings are not claimed, though several scenarios
// that check them carry no capability tag.
func TestKubernetes119Profile(t *testing.T) {
	p, err := profile.Load("../../profiles/kubernetes-1.19.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var notClaimedChecks int
	for _, s := range runOffline(t, mutants.Kubernetes119Module, harness.Options{Profile: p}) {
		if s.Failed {
			t.Errorf("%s fails: %v → %v", s.Scenario, s.Err, s.FailedRules())
		}
		if s.Outcome() == outcome.NotApplicable && !strings.Contains(s.NotApplicable, "names no CRD") {
			t.Errorf("%s is not applicable for an unexpected reason: %s", s.Scenario, s.NotApplicable)
		}
		for _, c := range s.Checks {
			if c.Outcome == outcome.NotClaimed {
				notClaimedChecks++
			}
		}
	}
	if notClaimedChecks == 0 {
		t.Error("no event or warning check was reported not claimed")
	}
}

// TestLyingProfiles: a declaration is an option of the model, checked,
// never an excuse. A profile that declares "conflicts: reject" for an
// implementation that admits conflicting pods, or "conflicts: apply" for
// one that wipes the pod's env on a conflict, gets failures credited to
// the rules the model's differences show (R4.4 for the lost env), and no
// scenario differs as declared unless the model agrees with what was done.
func TestLyingProfiles(t *testing.T) {
	for _, tc := range []struct {
		name, module, conflicts string
		wantRule                rule.ID
	}{
		{"reject declared, conflicts admitted", mutants.Kubernetes119Module, "reject", rule.R4_2},
		{"apply declared, env wiped", mutants.Prefix + "wipes-env-on-conflict", "apply", rule.R4_4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lying := parseProfile(t, `apiVersion: presetsim.dev/v1alpha1
kind: Profile
metadata: {name: lying}
spec:
  referenceCRD: true
  behaviour: {conflicts: `+tc.conflicts+`}
`)
			var failedRules []rule.ID
			for _, s := range runOffline(t, tc.module, harness.Options{Profile: lying}) {
				failedRules = append(failedRules, s.FailedRules()...)
				if c := s.Declared(); c != nil && !strings.Contains(c.Reason, "verified") {
					t.Errorf("%s differs as declared without the model's verification: %s", s.Scenario, c.Reason)
				}
			}
			if !slices.Contains(failedRules, tc.wantRule) {
				t.Errorf("the lying profile gets failures %v, want %s among them", failedRules, tc.wantRule)
			}
		})
	}
}
