package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// capNames are the kernel's capability numbers, as runc and the OCI
// configuration name them.
var capNames = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
	"CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
	"CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
	"CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
}

// boundingSet reads this process's capability bounding set (CapBnd in
// /proc/self/status) as the names of the capabilities it holds. Capabilities
// newer than capNames are not named, and so never removed.
func boundingSet() (map[string]bool, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, fmt.Errorf("reading the capability bounding set: %w", err)
	}
	return parseBoundingSet(status)
}

func parseBoundingSet(status []byte) (map[string]bool, error) {
	scanner := bufio.NewScanner(bytes.NewReader(status))
	for scanner.Scan() {
		hex, ok := strings.CutPrefix(scanner.Text(), "CapBnd:")
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			return nil, fmt.Errorf("CapBnd %q: %w", strings.TrimSpace(hex), err)
		}
		held := map[string]bool{}
		for i, name := range capNames {
			held[name] = mask&(1<<i) != 0
		}
		return held, nil
	}
	return nil, fmt.Errorf("no CapBnd line in /proc/self/status")
}

// configFile is the file that runc's arguments point at: the bundle's
// config.json for create and run, the process file for exec.
func configFile(args []string) string {
	for i := 0; i < len(args); i++ {
		flag, value, inline := strings.Cut(args[i], "=")
		if !inline {
			if i+1 == len(args) {
				return ""
			}
			value = args[i+1]
		}
		switch flag {
		case "--bundle", "-b":
			return value + "/config.json"
		case "--process", "-p":
			return value
		}
	}
	return ""
}

// trimFile removes from the OCI configuration (or process) in file every
// capability that held marks as not held, rewriting the file only if
// something was removed.
func trimFile(file string, held map[string]bool) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, changed, err := trimCapabilities(data, held)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if !changed {
		return nil
	}
	return os.WriteFile(file, out, 0o600)
}

// trimCapabilities works on a whole configuration ({"process": {...}}) or
// on a process alone, as `runc exec --process` reads it. Numbers are kept as
// written (json.Number) and every other field is kept as it is.
func trimCapabilities(data []byte, held map[string]bool) ([]byte, bool, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var doc map[string]any
	if err := decoder.Decode(&doc); err != nil {
		return nil, false, fmt.Errorf("decoding: %w", err)
	}
	process := doc
	if p, ok := doc["process"].(map[string]any); ok {
		process = p
	}
	sets, ok := process["capabilities"].(map[string]any)
	if !ok {
		return data, false, nil
	}
	changed := false
	for set, list := range sets {
		names, ok := list.([]any)
		if !ok {
			continue
		}
		kept := names[:0:0]
		for _, n := range names {
			if name, ok := n.(string); ok && !held[name] && slices.Contains(capNames, name) {
				changed = true
				continue
			}
			kept = append(kept, n)
		}
		sets[set] = kept
	}
	if !changed {
		return data, false, nil
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, false, fmt.Errorf("encoding: %w", err)
	}
	return out, true, nil
}
