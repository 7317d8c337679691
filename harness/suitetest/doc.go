// Package suitetest runs the feature suite offline against the reference
// module from a Go test. It is the test `make mutation` gives the mutation
// tool: files tagged "mutation" in the packages of presets/ call Offline, so
// a mutant of the reference is judged by the feature suite alone, not by the
// unit tests written beside the code.
package suitetest
