package outcome

import (
	"fmt"
	"strings"
)

// Counts are how many scenarios came to each outcome.
type Counts map[Outcome]int

// counted are the outcomes as a count reads them: "3 differ as declared".
var counted = map[Outcome]string{
	Failed: "failed", Differs: "differ as declared", Passed: "passed", NotClaimed: "not claimed",
	NotApplicable: "not applicable", Unsupported: "unsupported", Untested: "untested",
}

// String is the counts in words, passed and failed always, the others
// when there are any: "4 passed, 1 failed, 2 not claimed".
func (c Counts) String() string {
	var parts []string
	for _, o := range []Outcome{Passed, Failed, Differs, NotClaimed, NotApplicable, Unsupported, Untested} {
		if n := c[o]; n > 0 || o == Passed || o == Failed {
			parts = append(parts, fmt.Sprintf("%d %s", n, counted[o]))
		}
	}
	return strings.Join(parts, ", ")
}

// NotRun is how many scenarios were not run: not claimed, not applicable
// or unsupported on the backend.
func (c Counts) NotRun() int { return c[NotClaimed] + c[NotApplicable] + c[Unsupported] }

// Scenarios is how many scenarios the counts count (untested is a rule's
// outcome, never a scenario's).
func (c Counts) Scenarios() int {
	n := 0
	for o, k := range c {
		if o != Untested {
			n += k
		}
	}
	return n
}
