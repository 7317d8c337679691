package conformance_test

import (
	"testing"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/backends/offline"
	"presetsim.dev/presetsim/conformance"
	"presetsim.dev/presetsim/harness/profile"
)

// ExampleRun checks a webhook of your own from a Go test: the run starts a
// control plane, issues the webhook a serving certificate ({cert}, {key}),
// writes it a kubeconfig ({kubeconfig}), starts it and registers it.
func ExampleRun() {
	_ = func(t *testing.T) {
		conformance.Run(t,
			conformance.WithBackend(envtest.New(envtest.Options{})),
			conformance.WithImplementation(conformance.Webhook("https://127.0.0.1:9443/mutate", nil,
				conformance.WithCommand("./my-webhook", "--cert", "{cert}", "--key", "{key}", "--kubeconfig", "{kubeconfig}"))),
			conformance.WithReportDir("reports"))
	}
}

// ExampleRunWithOptions checks the reference in memory against a part of
// the suite, with a profile of the shipped ones: options as a struct.
func ExampleRunWithOptions() {
	_ = func(t *testing.T) {
		prof, err := profile.Shipped("reference.yaml")
		if err != nil {
			t.Fatal(err)
		}
		r := conformance.RunWithOptions(t, conformance.Options{
			Backend: offline.New(),
			Profile: prof,
			Tags:    "@R4.2",
		})
		if r != nil && !r.Passed {
			t.Log("failed rules:", r.FailedRules())
		}
	}
}
