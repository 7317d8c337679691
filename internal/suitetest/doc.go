// Package suitetest runs the feature suite from a Go test: offline against
// the reference module (Offline), or on any World (Run). It is the test
// `make mutation` gives the mutation tool: files tagged "mutation" in the
// packages of presets/ call it, so a mutant of the reference is judged by
// the feature suite alone, not by the unit tests written beside the code;
// presets/policy's runs the suite on envtest against the policy.
package suitetest
