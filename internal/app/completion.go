package app

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/internal/registry"
)

// completeValues teaches shell completion (presetsim completion) the
// values of the flags that take names — backends, implementation kinds,
// modules, shipped profiles (or a YAML file), formats — and feature files
// for run's arguments, on every command that has them.
func completeValues(root *cobra.Command) {
	names := func(list []string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return list, cobra.ShellCompDirectiveNoFileComp
		}
	}
	var backends, impls []string
	for _, b := range registry.Backends() {
		backends = append(backends, b.Name)
	}
	for _, i := range registry.Implementations() {
		impls = append(impls, i.Name)
	}
	values := map[string]cobra.CompletionFunc{
		"backend":        names(backends),
		"implementation": names(impls),
		"module":         names(mutants.Registry().Names()),
		"profile": func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			// A shipped profile's name, or a file (the shell completes
			// files when no name matches).
			return shippedProfiles(), cobra.ShellCompDirectiveDefault
		},
	}
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if complete, ok := values[f.Name]; ok {
				_ = cmd.RegisterFlagCompletionFunc(f.Name, complete)
			}
		})
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if run, _, err := root.Find([]string{"run"}); err == nil && run != root {
		_ = run.RegisterFlagCompletionFunc("format", names([]string{"progress", "pretty", "cucumber", "junit"}))
		run.ValidArgsFunction = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"feature"}, cobra.ShellCompDirectiveFilterFileExt
		}
	}
}
