package app

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionText: the version names the module's version, the commit and
// whether it had changes, Go, and the Kubernetes libraries.
func TestVersionText(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "presetsim.dev/presetsim", Version: "v0.4.0"},
		Deps:     []*debug.Module{{Path: "k8s.io/apiserver", Version: "v0.37.1"}},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-27T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := versionText(info)
	for _, want := range []string{"presetsim v0.4.0\n", "commit     abc123 (2026-11-27T20:00:00Z), with changes not committed\n", "go         go1.26.8\n", "kubernetes v0.37.1"} {
		if !strings.Contains(got, want) {
			t.Errorf("version text lacks %q:\n%s", want, got)
		}
	}
	if got := versionText(&debug.BuildInfo{GoVersion: "go1.26.8"}); !strings.HasPrefix(got, "presetsim (devel)\n") || strings.Contains(got, "commit") {
		t.Errorf("a build without a version or commit:\n%s", got)
	}
}
