package steps

import (
	"context"
	"testing"
	"time"
)

// TestIdleGivesTheSlotBack: with one slot, a scenario waiting out a window
// lets another work meanwhile, and works again only once the slot is free.
func TestIdleGivesTheSlotBack(t *testing.T) {
	ctx := context.Background()
	work := make(slots, 1)
	a := &state{slots: work}
	if err := work.acquire(ctx); err != nil {
		t.Fatal(err)
	}
	a.holding = true

	other := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.idle(ctx, func() error {
			// The window: the slot is free for another scenario.
			if err := work.acquire(ctx); err != nil {
				return err
			}
			close(other)
			return nil
		})
	}()
	<-other
	select {
	case <-done:
		t.Fatal("the waiting scenario went on while the other held the only slot")
	case <-time.After(50 * time.Millisecond):
	}
	work.release() // the other scenario ends
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !a.holding || len(work) != 1 {
		t.Errorf("after the window: holding %v, slots taken %d; want true, 1", a.holding, len(work))
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.idle(cancelled, func() error { return nil }); err != nil {
		t.Errorf("a free slot is not taken again under a cancelled context: %v", err)
	}
	var none slots
	if err := (&state{slots: none}).idle(ctx, func() error { return nil }); err != nil {
		t.Errorf("no slots: %v", err)
	}
}
