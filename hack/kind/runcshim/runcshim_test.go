package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The bounding set of this project's Firecracker VMs: every capability up to
// 40 but CAP_SYS_RESOURCE (24).
const vmStatus = "Name:\tdockerd\nCapInh:\t0000000000000000\nCapBnd:\t000001fffeffffff\nCapAmb:\t0000000000000000\n"

func TestParseBoundingSet(t *testing.T) {
	held, err := parseBoundingSet([]byte(vmStatus))
	if err != nil {
		t.Fatal(err)
	}
	if held["CAP_SYS_RESOURCE"] || !held["CAP_SYS_ADMIN"] || !held["CAP_CHECKPOINT_RESTORE"] {
		t.Errorf("got %v", held)
	}
	for _, bad := range []string{"Name: x\n", "CapBnd:\tzz\n"} {
		if _, err := parseBoundingSet([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestConfigFile(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"create", []string{"--root", "/r", "create", "--bundle", "/b", "--pid-file", "/p", "id"}, "/b/config.json"},
		{"create, inline", []string{"create", "--bundle=/b", "id"}, "/b/config.json"},
		{"exec", []string{"--root", "/r", "exec", "--process", "/tmp/p.json", "--detach", "id"}, "/tmp/p.json"},
		{"start", []string{"--root", "/r", "start", "id"}, ""},
		{"flag without value", []string{"create", "--bundle"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := configFile(tt.args); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTrimCapabilities(t *testing.T) {
	held, _ := parseBoundingSet([]byte(vmStatus))
	tests := []struct {
		name, in    string
		wantChanged bool
		wantCaps    string // the bounding list after trimming
	}{
		{"privileged container", `{"ociVersion":"1.0.2","process":{"user":{"uid":0},"capabilities":{"bounding":["CAP_CHOWN","CAP_SYS_RESOURCE","CAP_BPF"],"effective":["CAP_SYS_RESOURCE"]}},"linux":{"resources":{"memory":{"limit":9223372036854771712}}}}`, true, `["CAP_CHOWN","CAP_BPF"]`},
		{"exec process", `{"args":["sh"],"capabilities":{"bounding":["CAP_SYS_RESOURCE","CAP_KILL"]}}`, true, `["CAP_KILL"]`},
		{"nothing missing", `{"process":{"capabilities":{"bounding":["CAP_CHOWN"]}}}`, false, `["CAP_CHOWN"]`},
		{"unknown capability kept", `{"process":{"capabilities":{"bounding":["CAP_FROM_THE_FUTURE"]}}}`, false, `["CAP_FROM_THE_FUTURE"]`},
		{"no capabilities", `{"process":{"args":["x"]}}`, false, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := trimCapabilities([]byte(tt.in), held)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tt.wantChanged {
				t.Fatalf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if !changed && string(out) != tt.in {
				t.Errorf("unchanged input was rewritten: %s", out)
			}
			if strings.Contains(string(out), "CAP_SYS_RESOURCE") {
				t.Errorf("CAP_SYS_RESOURCE left in %s", out)
			}
			if strings.Contains(tt.in, "9223372036854771712") && !strings.Contains(string(out), "9223372036854771712") {
				t.Errorf("a large number was not kept exactly: %s", out)
			}
			if tt.wantCaps != "" && !strings.Contains(string(out), `"bounding":`+tt.wantCaps) {
				t.Errorf("got %s, want bounding %s", out, tt.wantCaps)
			}
		})
	}
	if _, _, err := trimCapabilities([]byte("{not json"), held); err == nil {
		t.Error("malformed configuration: no error")
	}
}

func TestRegisterRuntime(t *testing.T) {
	tests := []struct{ name, in string }{
		{"existing settings", `{"storage-driver": "fuse-overlayfs", "mtu": 1400, "runtimes": {"other": {"path": "/x"}}}`},
		{"empty file", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := registerRuntime([]byte(tt.in), "/shim")
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got["default-runtime"] != runtimeName {
				t.Errorf("default-runtime = %v", got["default-runtime"])
			}
			runtimes := got["runtimes"].(map[string]any)
			if runtimes[runtimeName].(map[string]any)["path"] != "/shim" {
				t.Errorf("runtimes = %v", runtimes)
			}
			if strings.Contains(tt.in, "mtu") && (got["mtu"] != float64(1400) || runtimes["other"] == nil) {
				t.Errorf("other settings lost: %s", out)
			}
		})
	}
	if _, err := registerRuntime([]byte("{"), "/shim"); err == nil {
		t.Error("malformed daemon.json: no error")
	}
}
