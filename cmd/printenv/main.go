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

	"presetsim.dev/presetsim/internal/envprint"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "finish" {
		// The main process is PID 1 of the container's PID namespace.
		if err := syscall.Kill(1, syscall.SIGTERM); err != nil {
			fmt.Fprintln(os.Stderr, "printenv finish:", err)
			os.Exit(1)
		}
		return
	}
	os.Stdout.WriteString(envprint.Format(os.Environ()))
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	<-signals
}
