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

// AssetsEnv is the variable controller-runtime's envtest reads, set by
// setup-envtest: a directory of control-plane binaries.
const AssetsEnv = "KUBEBUILDER_ASSETS"

// Required are the control-plane binaries a directory must hold: the
// control plane runs kube-controller-manager (namespaces, service accounts,
// workloads) and kube-scheduler beside etcd and kube-apiserver.
var Required = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"}

// ErrBinariesNotBuilt is FindBinaries' error when the control-plane binaries
// have not been built yet: `make tools`, or BuildBinaries, builds them.
var ErrBinariesNotBuilt = errors.New("the control-plane binaries are not built yet: run `presetsim tools install` (it builds them from the Go module proxy, about 10 minutes, once per version), or set " + BinDirEnv + " or " + AssetsEnv + " to a directory of etcd, kube-apiserver, kube-controller-manager and kube-scheduler")

// FindBinaries returns the directory of the control-plane binaries, the
// first of:
//
//  1. $PRESETSIM_BIN_DIR, taken as it is;
//  2. $KUBEBUILDER_ASSETS (setup-envtest's layout), when it holds every
//     Required binary (setup-envtest's own downloads have no
//     kube-controller-manager, which this control plane runs: an error
//     says so rather than a failure at start);
//  3. the user cache that Install (presetsim tools install) fills, for the
//     versions this binary was made with (UserCache);
//  4. the cache that hack/build-tools.sh fills, found by walking up from
//     the working directory to the repository.
//
// It builds nothing; when none has the binaries the error wraps
// ErrBinariesNotBuilt.
func FindBinaries() (string, error) {
	if dir := os.Getenv(BinDirEnv); dir != "" {
		return dir, nil
	}
	var notes []string
	if dir := os.Getenv(AssetsEnv); dir != "" {
		missing := Missing(dir)
		if len(missing) == 0 {
			return dir, nil
		}
		notes = append(notes, fmt.Sprintf("%s=%s has no %s", AssetsEnv, dir, strings.Join(missing, ", ")))
	}
	if dir, err := UserCache(); err == nil && len(Missing(dir)) == 0 {
		return dir, nil
	}
	dir, err := repositoryCache()
	if errors.Is(err, ErrBinariesNotBuilt) && len(notes) > 0 {
		return "", fmt.Errorf("%w (%s)", err, strings.Join(notes, "; "))
	}
	return dir, err
}

// Missing lists the Required binaries a directory lacks.
func Missing(dir string) []string {
	var out []string
	for _, name := range Required {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.IsDir() {
			out = append(out, name)
		}
	}
	return out
}

// repositoryCache is the directory hack/build-tools.sh fills.
func repositoryCache() (string, error) {
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

// CanBuild reports whether BuildBinaries can build the binaries: the
// working directory is in presetsim's repository.
func CanBuild() bool {
	_, err := buildScript()
	return err == nil
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
			return "", fmt.Errorf("%w (and the working directory is not in presetsim's repository, whose hack/build-tools.sh builds them)", ErrBinariesNotBuilt)
		}
	}
}
