package registry

import (
	"presetsim.dev/presetsim/backends/cluster"
	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/backends/kind"
	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/internal/implementation/external"
	"presetsim.dev/presetsim/internal/implementation/installed"
	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/implementation/policy"
	"presetsim.dev/presetsim/internal/mutants"
)

// Backends are the backends a run can start, by name, the default first.
// A new backend is a package under internal/backend and one line here.
func Backends() backend.Registry {
	return backend.Registry{
		envtest.Registration(),
		offline.Registration(),
		kind.Registration(),
		cluster.Registration(),
	}
}

// Implementations are the kinds of implementation under test a run can
// install, by name, the default first. A new kind is a package under
// internal/implementation and one line here.
func Implementations() implementation.Registry {
	return implementation.Registry{
		module.Registration(mutants.Registry()),
		external.Registration(),
		policy.Registration(),
		installed.Registration(),
	}
}
