package installed

import (
	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/harness/implementation"
)

// Name is "installed".
const Name = "installed"

// Registration registers the kind; it has no flags of its own, and it is
// what a run tests on an existing cluster unless told otherwise.
func Registration() implementation.Registration {
	return implementation.Registration{
		Name:    Name,
		Summary: "what is installed on the cluster, --kubeconfig",
		Flags: func(*pflag.FlagSet) func(implementation.Env) (implementation.Implementation, error) {
			return func(implementation.Env) (implementation.Implementation, error) { return New(), nil }
		},
	}
}
