package interrupt

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestOnSignalNilOnlyCancels: with no stop given, a signal cancels Context
// and the process goes on (OnSignal(nil) after it neither stops nor exits),
// so that a Start in progress can fail and stop what it started.
func TestOnSignalNilOnlyCancels(t *testing.T) {
	i := Catch(context.Background())
	defer i.Release()
	i.OnSignal(nil)
	i.ch <- os.Interrupt
	select {
	case <-i.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a signal did not cancel the context")
	}
	i.OnSignal(nil)
	if got := i.Code(); got != 130 {
		t.Errorf("Code() = %d after SIGINT, want 130", got)
	}
}

// TestAfter: when the run's time is up, Context is cancelled as by a
// signal, with the timeout's exit status; a run that ends first is not.
func TestAfter(t *testing.T) {
	i := Catch(context.Background())
	defer i.Release()
	i.After(10 * time.Millisecond)
	select {
	case <-i.Context().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the time being up did not cancel the context")
	}
	i.OnSignal(nil)
	if got := i.Code(); got != TimeoutCode {
		t.Errorf("Code() = %d once the time is up, want %d", got, TimeoutCode)
	}

	early := Catch(context.Background())
	early.After(time.Hour)
	early.Release()
	if got := early.Code(); got != 0 {
		t.Errorf("Code() = %d for a run released before its time, want 0", got)
	}
}
