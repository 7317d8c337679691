package kindcluster

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// fakeDocker puts a docker command that runs script on PATH, alone.
func fakeDocker(t *testing.T, script string) {
	t.Helper()
	dir := t.TempDir()
	if script != "" {
		if err := os.WriteFile(filepath.Join(dir, "docker"), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}

func TestWithoutDocker(t *testing.T) {
	tests := []struct {
		name, docker, want string
	}{
		{"no docker command", "", "the kind backend needs Docker: no docker command on PATH"},
		{"no engine", `echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1`,
			"the kind backend needs a Docker engine, and none answers: docker info: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"},
		{"no node image", `case "$1" in info) echo 28.2.2;; *) exit 0;; esac`, "no kind node image (presetsim.dev/kind-node): build it with `make kind-image`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakeDocker(t, tt.docker)
			began := time.Now()
			_, err := Create(context.Background(), Options{Name: "presetsim-unit"})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the reason is not one line: %q", err)
			}
			if d := time.Since(began); d > 5*time.Second {
				t.Errorf("took %s to fail", d)
			}
		})
	}
}

func TestNamedImageMissing(t *testing.T) {
	fakeDocker(t, `case "$1" in info) echo 28.2.2;; image) echo "Error: No such image: presetsim.dev/kind-node:nope" >&2; exit 1;; *) exit 0;; esac`)
	_, err := Create(context.Background(), Options{Name: "presetsim-unit", Image: "presetsim.dev/kind-node:nope"})
	want := "no node image presetsim.dev/kind-node:nope: build it with `make kind-image` (Error: No such image: presetsim.dev/kind-node:nope)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

func TestConfig(t *testing.T) {
	out, err := yaml.Marshal(Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"disableDefaultCNI: true", "kubeProxyMode: none", "serviceSubnet: 10.0.0.0/24", "failCgroupV1: false", "addon/coredns", "role: control-plane"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("configuration lacks %q:\n%s", want, out)
		}
	}
	for _, patch := range Config().KubeadmConfigPatches {
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(patch), &doc); err != nil || doc["kind"] == nil {
			t.Errorf("patch %q is not a YAML document with a kind: %v", patch, err)
		}
	}
}

func TestPickIPv4(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"IPv4 then IPv6", "172.18.0.1 fc00:f853:ccd:e793::1 ", "172.18.0.1", false},
		{"IPv6 first", "fc00::1 172.18.0.1", "172.18.0.1", false},
		{"IPv6 only", "fc00::1", "", true},
		{"none", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pickIPv4(tt.in)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("got %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestLogger(t *testing.T) {
	var buf bytes.Buffer
	l := newLogger(&buf)
	l.V(0).Info(" ✓ Preparing nodes 📦\n")
	l.V(1).Info("debug detail")
	l.Warnf("disk %d%% full", 90)
	l.V(0).Infof("  ")
	want := "kind:  ✓ Preparing nodes 📦\nkind: warning: disk 90% full\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}
