// Package conformance checks a PodPreset implementation from a Go test,
// as Gateway API's conformance.RunConformance does: one call that starts a
// backend and the implementation, runs the feature suite (the one
// presetsim carries, or yours) and reports each scenario as a subtest,
// failing it with the step, its line and the rules of the specification
// it breaks.
//
//	func TestMyWebhook(t *testing.T) {
//		conformance.Run(t,
//			conformance.WithBackend(envtest.New(envtest.Options{})),
//			conformance.WithImplementation(conformance.Webhook("https://127.0.0.1:9443/mutate", nil,
//				conformance.WithCommand("./my-webhook", "--cert", "{cert}", "--key", "{key}", "--kubeconfig", "{kubeconfig}"))),
//			conformance.WithReportDir("reports"))
//	}
//
// Choices are typed: the backend is a value of one of the packages under
// backends/ (envtest, offline, kind, cluster), so a test links only the
// backend it names; the implementation is Reference, Module (an admission
// plug-in of your own), Webhook, Policy or Installed; the profile
// (harness/profile) declares how the implementation differs from the
// canonical PodPreset. Options are functional (Run) or a struct
// (RunWithOptions). The run's report is an outcome.Report, the versioned
// document summary.json holds.
package conformance
