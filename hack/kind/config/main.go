// Command config prints the kind cluster configuration of the harness's
// kind backend (kindcluster.Config) as YAML, for the kind CLI:
//
//	go run ./hack/kind/config > cluster.yaml
//	kind create cluster --config cluster.yaml --image "$(hack/kind/build-node-image.sh)"
//
// hack/kind/conformance.sh creates its cluster so, as a user would.
package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/backend/kindcluster"
)

func main() {
	out, err := yaml.Marshal(kindcluster.Config())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
