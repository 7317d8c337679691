package steps

import (
	"context"
	"slices"
	"sync"
)

// slots bound how many scenarios work at once. A scenario takes one when it
// starts and gives it back when it ends, and meanwhile while it waits out a
// settle window (idle): watching that nothing happens costs the machine
// nothing, so more scenarios run than work, and the windows of a run
// overlap instead of queueing. A slot given back goes first to a scenario
// coming back from a window, then to one that has not started: the one
// further along ends sooner, and the long scenarios, which start first, are
// what a run waits for at its end (a rollout scenario took 3.4 s in the
// suite, 1.5 s alone, before). A nil *slots bounds nothing.
type slots struct {
	mu   sync.Mutex
	free int
	// resuming and starting wait for a slot, each in the order it came.
	resuming, starting []chan struct{}
}

func newSlots(n int) *slots { return &slots{free: n} }

// waitingPerSlot is how many scenarios may run for each slot: the ones
// beyond the slots are waiting out a window.
const waitingPerSlot = 4

// acquire takes a slot, waiting for one (behind the scenarios coming back
// from a window, when resuming is false) until ctx is done. A free slot is
// taken whatever the context.
func (s *slots) acquire(ctx context.Context, resuming bool) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	if s.free > 0 {
		s.free--
		s.mu.Unlock()
		return nil
	}
	granted := make(chan struct{})
	queue := &s.starting
	if resuming {
		queue = &s.resuming
	}
	*queue = append(*queue, granted)
	s.mu.Unlock()
	select {
	case <-granted:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-granted: // handed over just now: pass it on
			s.handOver()
		default:
			*queue = slices.DeleteFunc(*queue, func(c chan struct{}) bool { return c == granted })
		}
		return ctx.Err()
	}
}

// release gives a slot back.
func (s *slots) release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handOver()
}

// handOver gives a slot to the first scenario waiting, resuming ones
// first, or frees it; s.mu is held.
func (s *slots) handOver() {
	for _, queue := range []*[]chan struct{}{&s.resuming, &s.starting} {
		if len(*queue) > 0 {
			close((*queue)[0])
			*queue = (*queue)[1:]
			return
		}
	}
	s.free++
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
	if aerr := st.slots.acquire(ctx, true); aerr != nil {
		return aerr
	}
	st.holding = true
	return err
}
