// Command printenv is the test image of the kind backend (built FROM scratch
// by hack/kind/build-node-image.sh as presetsim.dev/printenv): it prints the
// environment its container was started with and then sleeps until SIGTERM,
// so that a scenario on a real kubelet can compare what the container sees
// with what the harness computes (internal/containerenv).
//
// The output is read back by envprint.Parse: a header line, then
// one variable per line, sorted by name, with the value quoted as a Go string
// so that newlines and other bytes survive, then an end line.
//
// `printenv finish`, run in the container (pods/exec), ends the container's
// main process with exit status 0: that is how the harness lets the pods of
// a Job complete on a real kubelet.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"presetsim.dev/presetsim/internal/envprint"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "finish" {
		if err := finish(); err != nil {
			fmt.Fprintln(os.Stderr, "printenv finish:", err)
			os.Exit(1)
		}
		return
	}
	// The handler comes first: the main process is PID 1 of its PID
	// namespace, and the kernel drops a signal PID 1 does not catch.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	os.Stdout.WriteString(envprint.Format(os.Environ()))
	<-signals
}

// finish sends SIGTERM to the container's main process (PID 1) once it
// catches the signal: sent earlier, the kernel would drop it and the
// container would run on. When PID 1 exits, the container ends and this
// process with it.
func finish() error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, err := os.ReadFile("/proc/1/status")
		if err != nil {
			// No /proc to read: send it anyway.
			return syscall.Kill(1, syscall.SIGTERM)
		}
		catches, err := catchesSIGTERM(status)
		if err != nil {
			return err
		}
		if catches {
			return syscall.Kill(1, syscall.SIGTERM)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("PID 1 did not catch SIGTERM within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
