package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// runtimeName is the name under which install registers the shim.
const runtimeName = "presetsim-runc"

// install copies this executable to a stable path, registers it in the
// Docker daemon's configuration and reloads the daemon. The daemon reloads
// "runtimes" and "default-runtime" on SIGHUP without restarting containers.
func install(args []string) error {
	flags := flag.NewFlagSet("install", flag.ContinueOnError)
	path := flags.String("path", "/usr/local/libexec/presetsim/runcshim", "where to copy the shim")
	daemonJSON := flags.String("daemon-json", "/etc/docker/daemon.json", "the Docker daemon's configuration")
	pidFile := flags.String("pid-file", "/var/run/docker.pid", "the Docker daemon's pid file")
	if err := flags.Parse(args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := copyExecutable(self, *path); err != nil {
		return err
	}
	current, err := os.ReadFile(*daemonJSON)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	updated, err := registerRuntime(current, *path)
	if err != nil {
		return fmt.Errorf("%s: %w", *daemonJSON, err)
	}
	if !bytes.Equal(updated, current) {
		if err := os.WriteFile(*daemonJSON+".tmp", updated, 0o644); err != nil {
			return err
		}
		if err := os.Rename(*daemonJSON+".tmp", *daemonJSON); err != nil {
			return err
		}
	}
	pid, err := os.ReadFile(*pidFile)
	if err != nil {
		return fmt.Errorf("finding the Docker daemon to reload: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(pid)))
	if err != nil {
		return fmt.Errorf("%s: %w", *pidFile, err)
	}
	if err := syscall.Kill(n, syscall.SIGHUP); err != nil {
		return fmt.Errorf("reloading the Docker daemon (pid %d): %w", n, err)
	}
	return nil
}

// registerRuntime adds the shim to a daemon.json document as a runtime and
// the default runtime, keeping every other setting.
func registerRuntime(daemonJSON []byte, path string) ([]byte, error) {
	config := map[string]any{}
	if len(bytes.TrimSpace(daemonJSON)) > 0 {
		decoder := json.NewDecoder(bytes.NewReader(daemonJSON))
		decoder.UseNumber()
		if err := decoder.Decode(&config); err != nil {
			return nil, err
		}
	}
	runtimes, _ := config["runtimes"].(map[string]any)
	if runtimes == nil {
		runtimes = map[string]any{}
	}
	runtimes[runtimeName] = map[string]any{"path": path}
	config["runtimes"] = runtimes
	config["default-runtime"] = runtimeName
	out, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func copyExecutable(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(to+".tmp", data, 0o755); err != nil {
		return err
	}
	return os.Rename(to+".tmp", to)
}
