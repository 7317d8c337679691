package harness

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BinDirEnv names the environment variable that points at a directory with
// the control-plane binaries, skipping the build.
const BinDirEnv = "PRESETSIM_BIN_DIR"

// FindBinaries returns the directory of the control-plane binaries: $PRESETSIM_BIN_DIR
// when set, otherwise the cache that hack/build-tools.sh fills (building what
// is missing, with progress on progress), found by walking up from the working
// directory to the repository root.
func FindBinaries(progress io.Writer) (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		script := filepath.Join(dir, "hack", "build-tools.sh")
		if _, err := os.Stat(script); err == nil {
			var out bytes.Buffer
			cmd := exec.Command(script)
			cmd.Stdout, cmd.Stderr = &out, progress
			if err := cmd.Run(); err != nil {
				return "", fmt.Errorf("unable to build the control-plane binaries with %s: %w", script, err)
			}
			return strings.TrimSpace(out.String()), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("control-plane binaries not found: set %s or run from the repository", BinDirEnv)
		}
	}
}
