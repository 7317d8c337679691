package steps_test

import (
	"context"
	"fmt"
	"io"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/steps"
)

// Example is the step language in a godog suite of your own, with typed
// options and public packages only: harness.Start starts the backend (here
// offline; envtest.New, kind.New or cluster.New elsewhere) and the
// implementation (the reference when none is given; see package
// conformance for the others), and steps.Initializer registers the steps.
// The features are the built-in suite's simple.feature; yours are any path
// of an fs.FS. To run a suite with a verdict per scenario, see
// conformance.Run.
func Example() {
	w, err := harness.Start(context.Background(), harness.Options{Backend: offline.New()})
	if err != nil {
		panic(err)
	}
	defer w.Stop()

	suite := godog.TestSuite{
		Name:                "my-suite",
		ScenarioInitializer: steps.Initializer(w, presetsim.Suite),
		Options: &godog.Options{
			FS: presetsim.Suite, Paths: []string{presetsim.SuitePath + "/simple.feature"},
			Format: "progress", Output: io.Discard, Strict: true,
		},
	}
	fmt.Println("exit status", suite.Run())
	// Output: exit status 0
}
