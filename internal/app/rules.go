package app

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/rule"
)

// newRulesCommand is `presetsim rules`: the rules verdicts name.
func newRulesCommand(stdout io.Writer) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "rules [-o text|json]",
		Short: "list the rules of the specification that verdicts name (R1.1 …)",
		Long: `Lists the rules of the PodPreset specification, by id, with a title. Every failed check,
declared difference and fuzz disagreement names the rules it is about by these ids; scenarios
are tagged with them (@R4.3). The rules in full: docs/specification.md.`,
		Args: cli.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch output {
			case "text":
				group := ""
				for _, r := range rule.All {
					if g := r.ID.Section(); g != group {
						if group != "" {
							fmt.Fprintln(stdout)
						}
						group = g
					}
					fmt.Fprintf(stdout, "%-5s %s\n", r.ID, r.Title)
				}
				return nil
			case "json":
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rule.All)
			}
			return cli.UsageError(cmd, fmt.Sprintf("--output %q: want text or json", output))
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return cmd
}
