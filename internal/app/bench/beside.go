package bench

import (
	"errors"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/internal/registry"
)

// beside starts and stops the control planes the bench runs beside its
// main World, one at a time, keeping a signal's stop in step with what is
// up: while one starts, a signal only cancels the context (harness.Start
// then stops what it had started, and the main World is stopped once
// Start returns); once it is up, a signal stops it and the main World.
// Were a signal during such a start to stop the main World and exit, the
// starting control plane's etcd and kube-apiserver would stay behind.
type beside struct {
	interrupts *interrupt.Interrupts
	main       *harness.World
	// stopMain stops the main World and removes what else the bench made
	// (its temporary directory): a signal exits without deferred calls.
	stopMain func() error
	// choose makes a fresh backend and implementation, as the command's
	// flags chose them (registry.Choice).
	choose func() (registry.Chosen, error)
}

// start starts a World with opts and a fresh backend and implementation,
// in the interrupts' context.
func (b beside) start(opts harness.Options) (*harness.World, error) {
	chosen, err := b.choose()
	if err != nil {
		return nil, err
	}
	opts.Backend, opts.Implementation, opts.Profile, opts.Leftovers = chosen.Backend, chosen.Implementation, chosen.Profile, registry.Backends()
	b.interrupts.OnSignal(nil)
	w, err := harness.Start(b.interrupts.Context(), opts)
	if err != nil {
		b.interrupts.OnSignal(b.stopMain)
		return nil, err
	}
	b.interrupts.OnSignal(func() error { return errors.Join(w.Stop(), b.stopMain()) })
	return w, nil
}

// stop stops a World start started, and leaves a signal to the main one.
func (b beside) stop(w *harness.World) error {
	err := w.Stop()
	b.interrupts.OnSignal(b.stopMain)
	return err
}
