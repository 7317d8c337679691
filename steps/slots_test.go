package steps

import (
	"context"
	"errors"
	"testing"
	"time"
)

// taken is how many of the slots are held.
func (s *slots) taken(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return n - s.free
}

// TestIdleGivesTheSlotBack: with one slot, a scenario waiting out a window
// lets another work meanwhile, and works again only once the slot is free.
func TestIdleGivesTheSlotBack(t *testing.T) {
	ctx := context.Background()
	work := newSlots(1)
	a := &state{slots: work}
	if err := work.acquire(ctx, false); err != nil {
		t.Fatal(err)
	}
	a.holding = true

	other := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.idle(ctx, func() error {
			// The window: the slot is free for another scenario.
			if err := work.acquire(ctx, false); err != nil {
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
	if !a.holding || work.taken(1) != 1 {
		t.Errorf("after the window: holding %v, slots taken %d; want true, 1", a.holding, work.taken(1))
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.idle(cancelled, func() error { return nil }); err != nil {
		t.Errorf("a free slot is not taken again under a cancelled context: %v", err)
	}
	var none *slots
	if err := (&state{slots: none}).idle(ctx, func() error { return nil }); err != nil {
		t.Errorf("no slots: %v", err)
	}
}

// TestSlotsGoFirstToScenariosComingBack: a slot given back goes to a
// scenario coming back from a window before the ones waiting to start,
// however long they have waited, each kind in the order it came; a waiter
// whose context ends leaves the queue, and a slot handed to it as it left
// is passed on.
func TestSlotsGoFirstToScenariosComingBack(t *testing.T) {
	ctx := context.Background()
	work := newSlots(1)
	if err := work.acquire(ctx, false); err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 4)
	wait := func(name string, resuming bool) {
		go func() {
			if err := work.acquire(ctx, resuming); err != nil {
				order <- name + ": " + err.Error()
				return
			}
			order <- name
		}()
	}
	queued := func(resuming, starting int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			work.mu.Lock()
			r, s := len(work.resuming), len(work.starting)
			work.mu.Unlock()
			if r == resuming && s == starting {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("waiting: %d resuming, %d starting; want %d, %d", r, s, resuming, starting)
			}
			time.Sleep(time.Millisecond)
		}
	}
	wait("start 1", false)
	queued(0, 1)
	wait("start 2", false)
	queued(0, 2)
	wait("back 1", true)
	queued(1, 2)
	wait("back 2", true)
	queued(2, 2)
	var got []string
	for range 4 {
		work.release()
		got = append(got, <-order)
	}
	want := []string{"back 1", "back 2", "start 1", "start 2"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("slots went to %v, want %v", got, want)
		}
	}

	// The last of them still holds the slot: one that gives up waiting
	// leaves the queue, and the slot goes to the next.
	cancelled, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- work.acquire(cancelled, false) }()
	queued(0, 1)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait returned %v", err)
	}
	queued(0, 0)
	work.release()
	if work.taken(1) != 0 {
		t.Errorf("slots taken %d after the last release, want 0", work.taken(1))
	}
}
