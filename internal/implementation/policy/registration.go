package policy

import (
	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/harness/implementation"
)

// Registration registers the kind, tested with the shipped profile
// profiles/policy.yaml unless the run names another.
func Registration() implementation.Registration {
	return implementation.Registration{
		Name:    Name,
		Summary: "the presets compiled into MutatingAdmissionPolicies, no webhook; profile profiles/policy.yaml unless --profile",
		Flags: func(*pflag.FlagSet) func(implementation.Env) (implementation.Implementation, error) {
			return func(implementation.Env) (implementation.Implementation, error) { return New(Options{}), nil }
		},
	}
}
