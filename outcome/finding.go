package outcome

import (
	"fmt"
	"slices"

	"presetsim.dev/presetsim/rule"
)

// Finding is what an implementation did with a request that its
// registration, as deployed, never sends it: the harness sent it anyway,
// to see, and kept the answer from the API server. A request the
// registration does not subscribe never reaches the implementation in a
// cluster, so it fails nothing (R5.4 of the specification); a finding is
// shown and counted, and is a failure only when the run is asked to judge
// such requests (backend.UnsubscribedFail).
type Finding struct {
	// Rule is the rule the request would break if it were sent: R2.1 for
	// an UPDATE of a pod, R3.2 for its ephemeralcontainers subresource,
	// R2.6 for the CREATE of a workload.
	Rule rule.ID `json:"rule"`
	// Text says what the implementation did: `would change UPDATE of Pod
	// "web" if its registration sent it: add /spec/containers/0/env`.
	Text string `json:"text"`
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Rule, f.Text) }

// FindingsLine is the run's line about its findings, "" when there are
// none: how many, on which rules, and that they failed nothing.
func FindingsLine(findings []Finding) string {
	if len(findings) == 0 {
		return ""
	}
	var rules []rule.ID
	for _, f := range findings {
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	noun := "findings"
	if len(findings) == 1 {
		noun = "finding"
	}
	return fmt.Sprintf("%d %s (%s) on requests the implementation's registration does not send it: shown, not failed (--unsubscribed fail judges them)",
		len(findings), noun, rule.Join(rules, ", "))
}
