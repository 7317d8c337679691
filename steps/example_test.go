package steps_test

import (
	"context"
	"fmt"
	"io"

	"github.com/cucumber/godog"
	"github.com/spf13/pflag"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/steps"
)

// Example is the step language in a godog suite of your own, with public
// packages only: the flags choose the backend and the implementation
// (here the reference on the offline backend; --webhook-url and
// --kubeconfig choose yours), harness.Start starts them, and
// steps.Initializer registers the steps. The features are the built-in
// suite's simple.feature; yours are any path of an fs.FS.
func Example() {
	fs := pflag.NewFlagSet("my-suite", pflag.ContinueOnError)
	choice := harness.BindFlags(fs)
	if err := fs.Parse([]string{"--backend", "offline"}); err != nil {
		panic(err)
	}
	chosen, err := choice.Resolve(implementation.Env{})
	if err != nil {
		panic(err)
	}
	w, err := harness.Start(context.Background(), harness.Options{
		Backend: chosen.Backend, Implementation: chosen.Implementation, Profile: chosen.Profile,
	})
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
