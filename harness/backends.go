package harness

import (
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/backend/cluster"
	"presetsim.dev/presetsim/harness/backend/envtest"
	"presetsim.dev/presetsim/harness/backend/kind"
	"presetsim.dev/presetsim/harness/backend/offline"
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
