package harness

import (
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/backend/cluster"
	"presetsim.dev/presetsim/internal/backend/envtest"
	"presetsim.dev/presetsim/internal/backend/kind"
	"presetsim.dev/presetsim/internal/backend/offline"
)

// Backends are the backends a run can start, by name, the default first.
// A new backend is a package under harness/backend and one line here.
func Backends() backend.Registry {
	return backend.Registry{
		envtest.Registration(),
		offline.Registration(),
		kind.Registration(),
		cluster.Registration(),
	}
}
