package implementation

import (
	"github.com/spf13/pflag"
)

// Env is what an implementation's constructor may use beyond its own
// flags.
type Env struct {
	// ReportDir is the run's report folder, "" when there is none; an
	// implementation that starts a process keeps its output there.
	ReportDir string
}

// Registration makes an implementation kind known by name: to the CLI
// (--implementation NAME, its own flags, its one-line description) and to
// the harness. Setting one of a kind's own flags chooses it
// (--webhook-url chooses webhook), as a backend's own flags choose the
// backend.
type Registration struct {
	// Name selects the kind (--implementation NAME).
	Name string
	// Summary says in a few words what is tested, for --help.
	Summary string
	// Flags adds the kind's own flags to fs, if it has any, and returns
	// the function that makes the implementation from them once they are
	// parsed; a usage mistake in them is its error.
	Flags func(fs *pflag.FlagSet) func(Env) (Implementation, error)
}

// Registry is a list of registrations, the default first.
type Registry []Registration

// Names lists the registered kinds, in registration order.
func (r Registry) Names() []string {
	names := make([]string, len(r))
	for i, reg := range r {
		names[i] = reg.Name
	}
	return names
}

// Lookup returns the registration of a kind by name.
func (r Registry) Lookup(name string) (Registration, bool) {
	for _, reg := range r {
		if reg.Name == name {
			return reg, true
		}
	}
	return Registration{}, false
}
