package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"presetsim.dev/presetsim/harness"
)

// binaries returns the directory of the control-plane binaries. When they
// are not built yet, the command builds them, as an explicit step that says
// what it does and how long it takes; the harness itself never builds.
func binaries(ctx context.Context, stderr io.Writer) (string, error) {
	dir, err := harness.FindBinaries()
	if !errors.Is(err, harness.ErrBinariesNotBuilt) {
		return dir, err
	}
	fmt.Fprintln(stderr, "The control-plane binaries are not built yet; building them now, as `make tools` does (about 7 minutes, once) ...")
	return harness.BuildBinaries(ctx, stderr)
}
