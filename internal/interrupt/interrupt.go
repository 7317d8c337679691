package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Interrupts catches SIGINT and SIGTERM for the whole life of a run, so that
// no control-plane process outlives an interrupted run (envtest runs etcd and
// the API server in their own process groups, out of reach of a terminal's
// Ctrl-C).
//
// Before the World is up, a signal cancels Context: Start, which takes it,
// then fails and stops what it had started. Once OnSignal has been given the
// World's Stop, a signal stops the World and exits the process.
type Interrupts struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	done   chan struct{}
	// expired is closed when the run's time is up (After).
	expired     chan struct{}
	expiredOnce sync.Once

	mu     sync.Mutex
	caught os.Signal
	stop   func() error
}

// Catch starts catching SIGINT and SIGTERM.
func Catch(parent context.Context) *Interrupts {
	ctx, cancel := context.WithCancel(parent)
	i := &Interrupts{ctx: ctx, cancel: cancel, ch: make(chan os.Signal, 1), done: make(chan struct{}), expired: make(chan struct{})}
	signal.Notify(i.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		var sig os.Signal
		select {
		case sig = <-i.ch:
		case <-i.expired:
			sig = timedOut{}
		case <-i.done:
			return
		}
		i.mu.Lock()
		i.caught = sig
		stop := i.stop
		i.mu.Unlock()
		fmt.Fprintf(os.Stderr, "\n%s: stopping ...\n", sig)
		i.cancel()
		if stop != nil {
			i.stopAndExit(stop)
		}
	}()
	return i
}

// TimeoutCode is the exit status of a run whose time was up (After), as
// GNU timeout's.
const TimeoutCode = 124

// timedOut is the "signal" of a run whose time was up.
type timedOut struct{}

func (timedOut) String() string { return "time is up (--timeout)" }
func (timedOut) Signal()        {}

// After makes the end of d act as a signal does: Context is cancelled, and
// once OnSignal was given a stop, it is called and the process exits, with
// status TimeoutCode. Nothing happens for d ≤ 0.
func (i *Interrupts) After(d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.AfterFunc(d, func() { i.expiredOnce.Do(func() { close(i.expired) }) })
	go func() {
		<-i.done
		t.Stop()
	}()
}

// Context is cancelled when a signal arrives.
func (i *Interrupts) Context() context.Context { return i.ctx }

// Code is the exit status for the caught signal (130 for SIGINT, 143 for
// SIGTERM), or 0 when none was caught.
func (i *Interrupts) Code() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	switch i.caught {
	case nil:
		return 0
	case syscall.SIGTERM:
		return 143
	case timedOut{}:
		return TimeoutCode
	default:
		return 130
	}
}

// OnSignal makes a signal call stop and exit the process; if a signal came
// already, it does so at once. OnSignal(nil) makes a signal only cancel
// Context again, as before the World was up: for another World starting
// beside a running one, whose Start stops what it started when Context
// ends (a signal that stopped the running World and exited meanwhile would
// leave the starting one's processes behind).
func (i *Interrupts) OnSignal(stop func() error) {
	i.mu.Lock()
	caught := i.caught != nil
	i.stop = stop
	i.mu.Unlock()
	if caught && stop != nil {
		i.stopAndExit(stop)
	}
}

func (i *Interrupts) stopAndExit(stop func() error) {
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "error while stopping: %v\n", err)
	}
	os.Exit(i.Code())
}

// Release stops catching signals.
func (i *Interrupts) Release() {
	signal.Stop(i.ch)
	close(i.done)
	i.cancel()
}
