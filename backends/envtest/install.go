package envtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// toolModule is a module of hack/tools, as zz_generated.pins.go holds it.
type toolModule struct {
	Name         string
	GoMod, GoSum string
}

// binary is one control-plane binary Install builds: its module, package
// and whether it carries Kubernetes' version stamp.
type binary struct {
	name, module, pkg string
	kube              bool
}

var binaries = []binary{
	{"kube-apiserver", "kubernetes", "k8s.io/kubernetes/cmd/kube-apiserver", true},
	{"kube-controller-manager", "kubernetes", "k8s.io/kubernetes/cmd/kube-controller-manager", true},
	{"kube-scheduler", "kubernetes", "k8s.io/kubernetes/cmd/kube-scheduler", true},
	{"kubectl", "kubernetes", "k8s.io/kubernetes/cmd/kubectl", true},
	{"etcd", "etcd", "go.etcd.io/etcd/server/v3", false},
}

// InstallOptions change how Install builds.
type InstallOptions struct {
	// Dir receives the binaries; UserCache() when empty.
	Dir string
	// Go is the go command; "go" when empty.
	Go string
	// Progress receives what is built, and how long it took.
	Progress io.Writer
}

// UserCache is where Install puts the binaries by default and FindBinaries
// looks for them: the user's cache directory, under a name that changes
// with the pins this binary was made with (its go.mod and go.sum).
func UserCache() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory: %w", err)
	}
	h := sha256.New()
	for _, m := range toolModules {
		io.WriteString(h, m.Name+"\x00"+m.GoMod+"\x00"+m.GoSum+"\x00")
	}
	return filepath.Join(base, "presetsim", "tools", kubernetesVersion()+"-"+hex.EncodeToString(h.Sum(nil))[:12], "bin"), nil
}

// Install builds the control-plane binaries from the Go module proxy, at
// the versions this binary was made with (hack/tools' pins, embedded), into
// the user cache (or opts.Dir), and returns their directory. It needs the
// go command; a binary already there is not built again. Each is built in
// a module of its own in a temporary directory, removed afterwards.
// Cancelling ctx stops the build.
func Install(ctx context.Context, opts InstallOptions) (string, error) {
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = UserCache(); err != nil {
			return "", err
		}
	}
	if opts.Go == "" {
		opts.Go = "go"
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp("", "presetsim-tools-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	for _, m := range toolModules {
		mdir := filepath.Join(work, m.Name)
		if err := os.MkdirAll(mdir, 0o755); err != nil {
			return "", err
		}
		for name, data := range map[string]string{"go.mod": m.GoMod, "go.sum": m.GoSum} {
			if err := os.WriteFile(filepath.Join(mdir, name), []byte(data), 0o644); err != nil {
				return "", err
			}
		}
	}
	for _, b := range binaries {
		out := filepath.Join(dir, b.name)
		if _, err := os.Stat(out); err == nil {
			fmt.Fprintf(opts.Progress, "%s: already built\n", b.name)
			continue
		}
		fmt.Fprintf(opts.Progress, "building %s (%s) ...\n", b.name, b.pkg)
		start := time.Now()
		args := []string{"build", "-o", out + ".tmp", "-ldflags", ldflags(b)}
		cmd := exec.CommandContext(ctx, opts.Go, append(args, b.pkg)...)
		cmd.Dir = filepath.Join(work, b.module)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOWORK=off")
		cmd.Stdout, cmd.Stderr = opts.Progress, opts.Progress
		if err := cmd.Run(); err != nil {
			os.Remove(out + ".tmp")
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			return "", fmt.Errorf("unable to build %s: %w", b.name, err)
		}
		if err := os.Rename(out+".tmp", out); err != nil {
			return "", err
		}
		fmt.Fprintf(opts.Progress, "built %s in %s\n", b.name, time.Since(start).Round(time.Second))
	}
	if missing := Missing(dir); len(missing) > 0 {
		return "", errors.New("built, yet missing: " + strings.Join(missing, ", "))
	}
	return dir, nil
}

// ldflags are a binary's linker flags: Kubernetes' version stamp, as its
// own build sets it, so that the API server reports its version.
func ldflags(b binary) string {
	if !b.kube {
		return "-s -w"
	}
	v := kubernetesVersion()
	minor := ""
	if parts := strings.Split(strings.TrimPrefix(v, "v"), "."); len(parts) > 1 {
		minor = parts[1]
	}
	pkg := "k8s.io/component-base/version"
	return fmt.Sprintf("-s -w -X %[1]s.gitVersion=%[2]s -X %[1]s.gitMajor=1 -X %[1]s.gitMinor=%[3]s -X %[1]s.gitTreeState=clean", pkg, v, minor)
}

// kubernetesVersion is the pinned k8s.io/kubernetes version.
func kubernetesVersion() string {
	for _, m := range toolModules {
		for _, line := range strings.Split(m.GoMod, "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "require" && f[1] == "k8s.io/kubernetes" {
				return f[2]
			}
		}
	}
	return "unknown"
}
