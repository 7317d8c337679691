package module

import (
	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/harness/implementation"
)

// Name is "module".
const Name = "module"

// Registration registers the kind over a registry of modules, with its
// flag --module (the reference when not set).
func Registration(r *Registry) implementation.Registration {
	return implementation.Registration{
		Name:    Name,
		Summary: "an in-process admission module, --module (the reference, or a mutant)",
		Flags: func(fs *pflag.FlagSet) func(implementation.Env) (implementation.Implementation, error) {
			name := fs.String("module", Reference, "in-process admission module to test (presetsim modules lists them)")
			return func(implementation.Env) (implementation.Implementation, error) { return Implementation(r, *name) }
		},
	}
}
