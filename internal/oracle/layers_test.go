package oracle

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers: the oracle sits below the steps and the fuzzer — the steps,
// the scenario machinery and the oracle itself import no fuzz package, so
// a verdict's call path never goes back up into the generator.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: lists the packages' imports with the go command")
	}
	const fuzzer = "presetsim.dev/presetsim/internal/fuzz"
	for _, pkg := range []string{"./steps/...", "./internal/scenario/...", "./internal/oracle"} {
		t.Run(pkg, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg)
			cmd.Dir = "../.."
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", pkg, err)
			}
			deps := strings.Fields(string(out))
			if len(deps) == 0 {
				t.Fatalf("go list -deps %s listed nothing", pkg)
			}
			if slices.ContainsFunc(deps, func(d string) bool { return d == fuzzer || strings.HasPrefix(d, fuzzer+"/") }) {
				t.Errorf("%s depends on %s", pkg, fuzzer)
			}
		})
	}
}
