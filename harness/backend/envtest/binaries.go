package envtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BinDirEnv names the environment variable that points at a directory with
// the control-plane binaries, skipping the look-up.
const BinDirEnv = "PRESETSIM_BIN_DIR"

// ErrBinariesNotBuilt is FindBinaries' error when the control-plane binaries
// have not been built yet: `make tools`, or BuildBinaries, builds them.
var ErrBinariesNotBuilt = errors.New("the control-plane binaries are not built yet: run `make tools` (about 7 minutes, once per pin) or set " + BinDirEnv)

// FindBinaries returns the directory of the control-plane binaries:
// $PRESETSIM_BIN_DIR when set, otherwise the cache that hack/build-tools.sh
// fills, found by walking up from the working directory to the repository
// root. It builds nothing; when the binaries are missing the error wraps
// ErrBinariesNotBuilt.
func FindBinaries() (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return dir, nil
	}
	script, err := buildScript()
	if err != nil {
		return "", err
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command(script, "--check")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 {
			return "", ErrBinariesNotBuilt
		}
		return "", fmt.Errorf("%s --check: %w: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// BuildBinaries builds the control-plane binaries with hack/build-tools.sh,
// as `make tools` does, with its progress on progress, and returns their
// directory. It takes minutes the first time; the CLI calls it, saying so,
// when FindBinaries reports ErrBinariesNotBuilt. Cancelling ctx stops the
// build.
func BuildBinaries(ctx context.Context, progress io.Writer) (string, error) {
	script, err := buildScript()
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, script)
	cmd.Stdout, cmd.Stderr = &out, progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("unable to build the control-plane binaries with %s: %w", script, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// buildScript finds hack/build-tools.sh above the working directory.
func buildScript() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		script := filepath.Join(dir, "hack", "build-tools.sh")
		if _, err := os.Stat(script); err == nil {
			return script, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("control-plane binaries not found: set %s or run from the repository", BinDirEnv)
		}
	}
}
