package registry

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
)

// Choice binds the backend and implementation registries to a command's
// flags: --backend, --implementation and every registration's own flags.
// Once the flags are parsed, Resolve makes what they choose. A command (or
// a user's own godog suite) never names a backend or an implementation
// kind itself.
type Choice struct {
	fs                *pflag.FlagSet
	backendName, impl *string
	backends          backend.Registry
	impls             implementation.Registry
	makeBackend       map[string]func() (backend.Backend, error)
	makeImpl          map[string]func(implementation.Env) (implementation.Implementation, error)
	backendOf, implOf map[string]string // a registration's own flag → its name
}

// BindFlags adds the flags of every registered backend and implementation
// kind to fs.
func BindFlags(fs *pflag.FlagSet) *Choice {
	return Bind(fs, Backends(), Implementations())
}

// Bind adds the flags of the given backends and implementation kinds to
// fs, for a command that offers only some of them.
func Bind(fs *pflag.FlagSet, backends backend.Registry, impls implementation.Registry) *Choice {
	c := &Choice{fs: fs, backends: backends, impls: impls,
		makeBackend: map[string]func() (backend.Backend, error){},
		makeImpl:    map[string]func(implementation.Env) (implementation.Implementation, error){},
		backendOf:   map[string]string{}, implOf: map[string]string{}}
	var summaries []string
	for _, reg := range c.backends {
		summaries = append(summaries, fmt.Sprintf("%s (%s)", reg.Name, reg.Summary))
		c.makeBackend[reg.Name] = ownFlags(fs, reg.Name, c.backendOf, reg.Flags)
	}
	c.backendName = fs.String("backend", c.backends[0].Name, "where objects live: "+strings.Join(summaries, ", ")+"; a backend's own flag chooses it")
	summaries = nil
	for _, reg := range c.impls {
		summaries = append(summaries, fmt.Sprintf("%s (%s)", reg.Name, reg.Summary))
		c.makeImpl[reg.Name] = ownFlags(fs, reg.Name, c.implOf, reg.Flags)
	}
	c.impl = fs.String("implementation", "", "what implements PodPreset: "+strings.Join(summaries, ", ")+
		"; a kind's own flag chooses it, else the backend's usual one (installed on an existing cluster), else "+c.impls[0].Name)
	return c
}

// ownFlags calls a registration's Flags and records which flags it added.
func ownFlags[T any](fs *pflag.FlagSet, name string, owner map[string]string, add func(*pflag.FlagSet) T) T {
	before := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
	made := add(fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if !before[f.Name] {
			owner[f.Name] = name
		}
	})
	return made
}

// Chosen is what the flags chose: the backend and the implementation to
// start (harness.Options), and the profile the implementation kind is
// tested with when the run names none (nil: the canonical PodPreset).
type Chosen struct {
	Backend        backend.Backend
	Implementation implementation.Implementation
	Profile        *profile.Profile
}

// Resolve makes the backend and the implementation the parsed flags
// choose. Its errors are usage errors: an unknown name, or flags of two
// backends or two kinds.
func (c *Choice) Resolve(env implementation.Env) (Chosen, error) {
	var ch Chosen
	bname, err := c.pick("backend", *c.backendName, c.backendOf, c.backends.Names())
	if err != nil {
		return ch, err
	}
	if bname == "" {
		bname = *c.backendName // the flag's default
	}
	breg, _ := c.backends.Lookup(bname)
	iname, err := c.pick("implementation", *c.impl, c.implOf, c.impls.Names())
	if err != nil {
		return ch, err
	}
	if iname == "" {
		iname = breg.Implementation
	}
	if iname == "" {
		iname = c.impls[0].Name
	}
	if ch.Backend, err = c.makeBackend[bname](); err != nil {
		return ch, err
	}
	if ch.Implementation, err = c.makeImpl[iname](env); err != nil {
		return ch, err
	}
	if p, ok := ch.Implementation.(implementation.Profiled); ok {
		if ch.Profile, err = p.Profile(); err != nil {
			return ch, err
		}
	}
	return ch, nil
}

// pick returns the registration that --what and the registrations' own
// flags choose: the one named, or the one whose flags were set; "" when
// neither says.
func (c *Choice) pick(what, named string, owner map[string]string, known []string) (string, error) {
	flagged := map[string]string{} // registration → one of its flags that was set
	c.fs.Visit(func(f *pflag.Flag) {
		if o, ok := owner[f.Name]; ok {
			flagged[o] = "--" + f.Name
		}
	})
	if c.fs.Changed(what) {
		if !slices.Contains(known, named) {
			return "", fmt.Errorf("unknown %s %q (known: %s)", what, named, strings.Join(known, ", "))
		}
		for o, flag := range flagged {
			if o != named {
				return "", fmt.Errorf("%s belongs to %s %s, not to --%s %s", flag, what, o, what, named)
			}
		}
		return named, nil
	}
	var chosen []string
	for o := range flagged {
		chosen = append(chosen, o)
	}
	switch len(chosen) {
	case 0:
		return "", nil
	case 1:
		return chosen[0], nil
	}
	var flags []string
	for _, o := range chosen {
		flags = append(flags, flagged[o]+" ("+o+")")
	}
	sort.Strings(flags)
	return "", fmt.Errorf("flags of more than one %s were set: %s", what, strings.Join(flags, ", "))
}
