package report

import (
	"fmt"
	"io"
	"strings"

	"presetsim.dev/presetsim/outcome"
)

// WriteVerdict writes what a run decided, and nothing of how long it took:
// what was tested where, whether it passed, that it did not finish when
// it was cut short, the totals, each rule's outcome and each scenario's,
// a line each. Two runs of the same suite against the same
// implementation — one whole, one in shards merged — write the same
// verdict; that is how make test-kind checks a sharded run.
func WriteVerdict(w io.Writer, s *outcome.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "implementation: %s\nversion: %s\nbackend: %s\npassed: %t\n", s.Implementation, s.Version, s.Backend, s.Passed)
	if s.Interrupted != "" {
		fmt.Fprintf(&b, "finished: false (%s)\n", s.Interrupted)
	}
	fmt.Fprintf(&b, "totals: %s\n", s.Totals)
	for _, r := range s.Rules {
		fmt.Fprintf(&b, "rule %-6s %-15s %s\n", r.ID, r.Outcome, r.Title)
	}
	for _, sc := range s.Scenarios {
		fmt.Fprintf(&b, "scenario %-15s %s\n", sc.Outcome, sc.Name)
		if sc.FailedCheck != "" {
			fmt.Fprintf(&b, "  failed check: %s\n", sc.FailedCheck)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
