package app

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
)

// newVersionCommand is `presetsim version`: what this binary is, from its
// build information, and the Kubernetes it was made against.
func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "print this presetsim's version, commit, Go and Kubernetes versions",
		Example: `  presetsim version`,
		Args:    cli.NoArgs,
		Run: func(*cobra.Command, []string) {
			info, ok := debug.ReadBuildInfo()
			if !ok {
				fmt.Fprintln(stdout, "presetsim (no build information)")
				return
			}
			fmt.Fprint(stdout, versionText(info))
		},
	}
}

// versionText renders build information: the module's version, the commit
// it was built from (and whether the tree had changes), Go, and the
// Kubernetes libraries.
func versionText(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	out := "presetsim " + version + "\n"
	if rev := settings["vcs.revision"]; rev != "" {
		out += "commit     " + rev
		if t := settings["vcs.time"]; t != "" {
			out += " (" + t + ")"
		}
		if settings["vcs.modified"] == "true" {
			out += ", with changes not committed"
		}
		out += "\n"
	}
	out += "go         " + info.GoVersion + "\n"
	for _, d := range info.Deps {
		if d.Path == "k8s.io/apiserver" {
			out += "kubernetes " + d.Version + " (k8s.io libraries; the control plane a run starts is pinned in hack/tools)\n"
		}
	}
	return out
}
