//go:build mutation

package policy_test

import (
	"os"
	"testing"

	"presetsim.dev/presetsim/backends/envtest"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	policyimpl "presetsim.dev/presetsim/internal/implementation/policy"
	"presetsim.dev/presetsim/internal/suitetest"
)

// TestEnvtestPolicySuite is the test make mutation runs against every
// mutant of this package: the feature suite on envtest against the
// presets compiled into MutatingAdmissionPolicies, under the policy's
// profile (the offline backend cannot evaluate a policy).
func TestEnvtestPolicySuite(t *testing.T) {
	if os.Getenv("PRESETSIM_BIN_DIR") == "" {
		t.Skip("PRESETSIM_BIN_DIR is not set: the policy needs a real API server (make mutation sets it)")
	}
	data, err := presetsim.Profiles.ReadFile("profiles/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse("profiles/policy.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	suitetest.Run(t, harness.Options{Backend: envtest.New(envtest.Options{}), Implementation: policyimpl.New(policyimpl.Options{}), Profile: prof}, "../../features")
}
