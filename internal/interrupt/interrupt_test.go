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
