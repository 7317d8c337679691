package mutants

import (
	"context"
	"io"
	"slices"

	"presetsim.dev/presetsim/rule"

	"k8s.io/apiserver/pkg/admission"

	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/mutants/example"
)

// Mutant is one faulty module: the rule it breaks and how.
type Mutant struct {
	// Name is the module's name without the "mutant/" prefix.
	Name string
	// Rule is the id of the broken rule, e.g. rule.R2_4.
	Rule rule.ID
	// Fault says what the module does wrong.
	Fault string
}

// All are the mutants: the first thirteen (classic.go), then those written
// from the specification rule by rule (faults.go), then those that mutate
// requests other than CREATE of a pod (operations.go), then those with
// limits of their own (limits.go, R6.4), then those that break R6, state
// over time (history.go), all decorators of the reference plug-in.
var All = slices.Concat(mutantsOf(classicMutants), mutantsOf(decoratedMutants), mutantsOf(operationMutants), mutantsOf(limitMutants), statefulOf(historyMutants))

// Prefix is the prefix of the mutants' module names.
const Prefix = "mutant/"

// ExampleModule is the name of the example out-of-tree implementation
// (package example).
const ExampleModule = example.Name

// NoopModule is the name of a module that admits every pod unchanged: an
// implementation that does nothing, which every rule of R2–R4 that asks for
// something to happen must catch.
const NoopModule = "noop"

// Register adds every mutant to the registry as Prefix+Name, and NoopModule.
func Register(m *module.Registry) {
	for _, mu := range slices.Concat(classicMutants, decoratedMutants, operationMutants, limitMutants) {
		m.Register(Prefix+mu.Name, newDecorated(mu.fault))
	}
	for _, mu := range historyMutants {
		m.Register(Prefix+mu.Name, mu.factory())
	}
	m.Register(Kubernetes119Module, newDecorated(kubernetes119()))
	// The no-op module wants no lister, so it runs whatever CRD is served.
	m.Register(NoopModule, func(io.Reader) (admission.Interface, error) {
		return noop{Handler: admission.NewHandler(admission.Create)}, nil
	})
}

// Registry returns a registry of every in-process module: the reference,
// the mutants, NoopModule and ExampleModule.
func Registry() *module.Registry {
	m := module.NewRegistry()
	Register(m)
	example.Register(m)
	return m
}

// Implementation returns the named module of Registry as the implementation
// under test.
func Implementation(name string) (*module.Module, error) {
	return module.Implementation(Registry(), name)
}

// decoratedMutant is a mutant and its fault.
type decoratedMutant struct {
	Mutant
	fault fault
}

// statefulMutant is a mutant whose fault keeps state across admissions:
// fresh makes it anew for every plug-in instance, so that one run's state
// never reaches another.
type statefulMutant struct {
	Mutant
	fresh func() fault
}

// factory makes the mutant's plug-in, with state of its own.
func (m statefulMutant) factory() admission.Factory {
	return func(config io.Reader) (admission.Interface, error) { return newDecorated(m.fresh())(config) }
}

// mutantsOf lists the mutants of ds.
func mutantsOf(ds []decoratedMutant) []Mutant {
	out := make([]Mutant, len(ds))
	for i, d := range ds {
		out[i] = d.Mutant
	}
	return out
}

func statefulOf(ms []statefulMutant) []Mutant {
	out := make([]Mutant, len(ms))
	for i, m := range ms {
		out[i] = m.Mutant
	}
	return out
}

// noop admits every pod as it is.
type noop struct{ *admission.Handler }

func (noop) Admit(context.Context, admission.Attributes, admission.ObjectInterfaces) error {
	return nil
}
