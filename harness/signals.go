package harness

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// StopOnSignal calls stop and exits when the process gets SIGINT or SIGTERM,
// so that no control-plane process outlives an interrupted run (envtest runs
// them in their own process groups, out of reach of a terminal's Ctrl-C). The
// returned function cancels the handler.
func StopOnSignal(stop func() error) (cancel func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			fmt.Fprintf(os.Stderr, "\n%s: stopping the control plane ...\n", sig)
			if err := stop(); err != nil {
				fmt.Fprintf(os.Stderr, "error while stopping: %v\n", err)
			}
			code := 130
			if sig == syscall.SIGTERM {
				code = 143
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
