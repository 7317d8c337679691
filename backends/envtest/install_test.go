package envtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstall builds with a stand-in for the go command that records how
// it was called and writes the file it is asked for: every binary is
// built once, each in a module holding the embedded pins, the Kubernetes
// ones stamped with the pinned version; a second Install builds nothing.
func TestInstall(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	log := filepath.Join(work, "calls")
	fakeGo := filepath.Join(work, "go")
	script := `#!/bin/sh
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
echo "$PWD|$*" >> ` + log + `
cp go.mod "$out.gomod" && : > "$out"
`
	if err := os.WriteFile(fakeGo, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Install(context.Background(), InstallOptions{Dir: dir, Go: fakeGo})
	if err != nil {
		t.Fatal(err)
	}
	if got != dir || len(Missing(dir)) > 0 {
		t.Fatalf("Install returned %s, missing %v", got, Missing(dir))
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	calls := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(calls) != len(binaries) {
		t.Fatalf("%d builds, want %d:\n%s", len(calls), len(binaries), data)
	}
	version := kubernetesVersion()
	if !strings.HasPrefix(version, "v1.") {
		t.Fatalf("pinned Kubernetes version %q", version)
	}
	for i, b := range binaries {
		if !strings.HasSuffix(calls[i], " "+b.pkg) {
			t.Errorf("build %d is %q, want package %s", i, calls[i], b.pkg)
		}
		if stamped := strings.Contains(calls[i], "gitVersion="+version); stamped != b.kube {
			t.Errorf("%s: version stamp %v, want %v (%s)", b.name, stamped, b.kube, calls[i])
		}
		gomod, err := os.ReadFile(filepath.Join(dir, b.name+".tmp.gomod"))
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		for _, m := range toolModules {
			if m.Name == b.module {
				want = m.GoMod
			}
		}
		if string(gomod) != want {
			t.Errorf("%s was built in a module whose go.mod is not the pinned %s one", b.name, b.module)
		}
	}
	if _, err := Install(context.Background(), InstallOptions{Dir: dir, Go: fakeGo}); err != nil {
		t.Fatal(err)
	}
	if data2, _ := os.ReadFile(log); len(data2) != len(data) {
		t.Errorf("a second Install built again:\n%s", data2)
	}
}

// TestPinsAreTheRepositorys: the embedded pins are hack/tools' files
// (hack/verify.sh regenerates them; this says so in the unit tests too).
func TestPinsAreTheRepositorys(t *testing.T) {
	for _, m := range toolModules {
		for file, pinned := range map[string]string{"go.mod": m.GoMod, "go.sum": m.GoSum} {
			data, err := os.ReadFile(filepath.Join("..", "..", "hack", "tools", m.Name, file))
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimRight(string(data), "\n")+"\n" != pinned {
				t.Errorf("hack/tools/%s/%s differs from the embedded pins: run hack/generate.sh", m.Name, file)
			}
		}
	}
}
