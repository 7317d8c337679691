package containerenv

import (
	"slices"
	"strings"
)

// RuntimeVars are variables a container has that the kubelet does not make:
// the container runtime sets HOSTNAME, HOME (and TERM with a tty) and the
// image sets PATH. ComparePrinted does not hold them against the simulation.
var RuntimeVars = []string{"HOSTNAME", "PATH", "TERM", "HOME"}

// Difference is a variable on which the simulated environment and what a
// real container printed disagree. A missing side is nil.
type Difference struct {
	Name      string
	Simulated *Var
	Printed   *string
}

// ComparePrinted compares env, as Resolve computed it, with what the
// container printed: every simulated variable must be printed with the same
// value, except those Resolve reports as unknown; every printed variable
// must be simulated, except the runtime's (RuntimeVars). Differences are
// sorted by name.
func ComparePrinted(env Environment, printed map[string]string) []Difference {
	var diffs []Difference
	seen := map[string]bool{}
	for i := range env.Vars {
		v := &env.Vars[i]
		seen[v.Name] = true
		if slices.Contains(env.Unknown, v.Name) {
			continue
		}
		got, ok := printed[v.Name]
		switch {
		case !ok:
			diffs = append(diffs, Difference{Name: v.Name, Simulated: v})
		case got != v.Value:
			diffs = append(diffs, Difference{Name: v.Name, Simulated: v, Printed: &got})
		}
	}
	for name, value := range printed {
		if !seen[name] && !slices.Contains(RuntimeVars, name) {
			diffs = append(diffs, Difference{Name: name, Printed: &value})
		}
	}
	slices.SortFunc(diffs, func(a, b Difference) int { return strings.Compare(a.Name, b.Name) })
	return diffs
}
