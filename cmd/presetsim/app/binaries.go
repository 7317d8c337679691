package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"presetsim.dev/presetsim/harness/backend/envtest"
	"presetsim.dev/presetsim/internal/interrupt"
)

// binaries returns the directory of the control-plane binaries. When they
// are not built yet, the command builds them, as an explicit step that says
// what it does and how long it takes; the harness itself never builds.
func binaries(ctx context.Context, stderr io.Writer) (string, error) {
	dir, err := envtest.FindBinaries()
	if !errors.Is(err, envtest.ErrBinariesNotBuilt) {
		return dir, err
	}
	fmt.Fprintln(stderr, "The control-plane binaries are not built yet; building them now, as `make tools` does (about 7 minutes, once) ...")
	return envtest.BuildBinaries(ctx, stderr)
}

// prepare is the start of every command that starts a control plane: it
// catches signals (Release them when done) and finds, or builds, the
// binaries.
func prepare(ctx context.Context, stderr io.Writer) (*interrupt.Interrupts, string, error) {
	interrupts := interrupt.Catch(ctx)
	bin, err := binaries(interrupts.Context(), stderr)
	if err != nil {
		interrupts.Release()
		return nil, "", err
	}
	return interrupts, bin, nil
}
