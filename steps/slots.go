package steps

import "context"

// slots bound how many scenarios work at once. A scenario takes one when it
// starts and gives it back when it ends, and meanwhile while it waits out a
// settle window (idle): watching that nothing happens costs the machine
// nothing, so more scenarios run than work, and the windows of a run
// overlap instead of queueing. A nil slots bounds nothing.
type slots chan struct{}

// waitingPerSlot is how many scenarios may run for each slot: the ones
// beyond the slots are waiting out a window.
const waitingPerSlot = 4

func (s slots) acquire(ctx context.Context) error {
	if s == nil {
		return nil
	}
	select { // a free slot is taken, whatever the context
	case s <- struct{}{}:
		return nil
	default:
	}
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s slots) release() {
	if s != nil {
		<-s
	}
}

// idle runs wait, a settle window, with the scenario's slot given back,
// and takes a slot again before it returns.
func (st *state) idle(ctx context.Context, wait func() error) error {
	if !st.holding {
		return wait()
	}
	st.slots.release()
	st.holding = false
	err := wait()
	if aerr := st.slots.acquire(ctx); aerr != nil {
		return aerr
	}
	st.holding = true
	return err
}
