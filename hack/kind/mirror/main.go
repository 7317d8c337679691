// Command mirror serves the test image to the nodes of an existing kind
// cluster until it is stopped (SIGTERM or Ctrl-C), as the kind backend does
// during its runs: every pull of the usual registries gets the printenv
// image (cmd/printenv), so that the pods of an in-cluster run start where
// no image can be pulled. hack/kind/conformance.sh runs it beside the
// conformance Job:
//
//	go run ./hack/kind/mirror presetsim-conformance &
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"presetsim.dev/presetsim/backends/kind"
	"presetsim.dev/presetsim/harness/backend"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mirror KIND-CLUSTER-NAME")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// An existing cluster is reused and left in place at Stop.
	c, err := kind.New(kind.Options{Name: os.Args[1]}).Start(ctx, backend.Run{ID: "mirror", Progress: os.Stderr, Wait: time.Minute})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mirror:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "mirror: serving the test image until stopped")
	<-ctx.Done()
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "mirror:", err)
		os.Exit(1)
	}
}
