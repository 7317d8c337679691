package backend

import (
	"slices"

	"github.com/spf13/pflag"
)

// Registration makes a backend known by name: to the CLI (--backend NAME,
// its own flags, its one-line description) and to the harness. Setting one
// of a backend's own flags chooses it (--kubeconfig chooses cluster).
type Registration struct {
	// Name selects the backend (--backend NAME).
	Name string
	// Summary says in a few words where objects live, for --help.
	Summary string
	// Flags adds the backend's own flags to fs, if it has any, and returns
	// the function that makes the backend from them once they are parsed.
	Flags func(fs *pflag.FlagSet) func() (Backend, error)
	// Implementation is the implementation kind a run tests on this
	// backend when its flags choose none ("installed" on an existing
	// cluster); "" for the first registered kind.
	Implementation string
	// Reap removes a resource a killed run of this backend recorded
	// (Run.KeepResource); nil for backends that record none.
	Reap func(name string) error
}

// Registry is a list of registrations.
type Registry []Registration

// Names lists the registered backends, in registration order.
func (r Registry) Names() []string {
	names := make([]string, len(r))
	for i, reg := range r {
		names[i] = reg.Name
	}
	return names
}

// Lookup returns the registration of a backend by name.
func (r Registry) Lookup(name string) (Registration, bool) {
	for _, reg := range r {
		if reg.Name == name {
			return reg, true
		}
	}
	return Registration{}, false
}

// Without is the registry less the named backends (a command that cannot
// use them: `presetsim up` makes its own cluster, so an existing one is not
// among its choices).
func (r Registry) Without(names ...string) Registry {
	var out Registry
	for _, reg := range r {
		if !slices.Contains(names, reg.Name) {
			out = append(out, reg)
		}
	}
	return out
}
