package outcome

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"presetsim.dev/presetsim/rule"
)

// Coverage is what a run checked, rule by rule: a rule is checked when a
// check credited to it ran against the implementation (passed, failed, or
// differed as declared, which is a check of the declared model) and none
// of its checks was skipped as not claimed, and no declaration weakened
// it. A green run that checked little says so.
type Coverage struct {
	// Checked are the rules checked.
	Checked []rule.ID `json:"checked"`
	// NotChecked are the others, each with why.
	NotChecked []NotChecked `json:"notChecked,omitempty"`
}

// NotChecked is a rule a run did not check, and why.
type NotChecked struct {
	Rule   rule.ID `json:"rule"`
	Why    Why     `json:"why"`
	Detail string  `json:"detail,omitempty"`
}

// Why a rule was not checked.
type Why string

// The reasons, in the order a run lists them.
const (
	// NotSelected: no scenario of the run is credited to it (--tags, the
	// files named).
	NotSelected Why = "not selected"
	// Unsupported: its scenarios cannot run on the backend.
	UnsupportedOnBackend Why = "unsupported on the backend"
	// DeclaredAway: a declaration of the profile weakens its checks so
	// that the run cannot see it broken (a propagation window longer than
	// the run watches).
	DeclaredAway Why = "declared away"
	// PartlyClaimed: some of its checks ran, others need a capability the
	// profile does not claim.
	PartlyClaimed Why = "partly not claimed"
	// Unclaimed: its scenarios or checks all need a capability the
	// profile does not claim.
	Unclaimed Why = "not claimed"
	// Inapplicable: its scenarios do not apply to the implementation.
	Inapplicable Why = "not applicable"
)

// whyOrder is the order reasons are listed in.
var whyOrder = []Why{NotSelected, UnsupportedOnBackend, DeclaredAway, PartlyClaimed, Unclaimed, Inapplicable}

// excusedByClaims are the reasons a profile gives: what the implementation
// does not claim, or what does not apply to it.
var excusedByClaims = []Why{PartlyClaimed, Unclaimed, Inapplicable}

// CoverageOf is what the report's run checked. declaredAway are the rules
// a declaration weakened, with what it was ("propagation: 1h, longer than
// the 30s the run watches").
func CoverageOf(r *Report, declaredAway map[rule.ID]string) *Coverage {
	unclaimedChecks := map[rule.ID]int{}
	for _, sc := range r.Scenarios {
		for _, c := range sc.Checks {
			if c.Outcome == NotClaimed {
				for _, id := range c.Rules {
					unclaimedChecks[id]++
				}
			}
		}
	}
	c := &Coverage{Checked: []rule.ID{}}
	for _, rr := range r.Rules {
		not := func(why Why, detail string) {
			c.NotChecked = append(c.NotChecked, NotChecked{Rule: rr.ID, Why: why, Detail: detail})
		}
		switch {
		case declaredAway[rr.ID] != "":
			not(DeclaredAway, declaredAway[rr.ID])
		case rr.Outcome.Ran() && unclaimedChecks[rr.ID] > 0:
			not(PartlyClaimed, fmt.Sprintf("%d checks not claimed", unclaimedChecks[rr.ID]))
		case rr.Outcome.Ran():
			c.Checked = append(c.Checked, rr.ID)
		case rr.Outcome == Untested:
			not(NotSelected, "")
		case rr.Outcome == Unsupported:
			not(UnsupportedOnBackend, "")
		case rr.Outcome == NotClaimed:
			not(Unclaimed, "")
		case rr.Outcome == NotApplicable:
			not(Inapplicable, "")
		}
	}
	return c
}

// Line is the run's line about what it checked: "31 of 34 rules; not
// checked: 2 not selected (R2.5, R2.6), 1 declared away (R6.1:
// propagation: 1h …)".
func (c *Coverage) Line() string {
	total := len(c.Checked) + len(c.NotChecked)
	line := fmt.Sprintf("%d of %d rules", len(c.Checked), total)
	if len(c.NotChecked) == 0 {
		return line + ", every one"
	}
	return line + "; not checked: " + grouped(c.NotChecked)
}

// grouped lists rules not checked by reason: "2 not selected (R2.5,
// R2.6), 1 declared away (R6.1: propagation: 1h …)".
func grouped(list []NotChecked) string {
	var parts []string
	for _, why := range whyOrder {
		var ids []string
		for _, n := range list {
			if n.Why != why {
				continue
			}
			id := string(n.Rule)
			if n.Detail != "" {
				id += ": " + n.Detail
			}
			ids = append(ids, id)
		}
		if len(ids) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(ids), why, strings.Join(ids, ", ")))
		}
	}
	return strings.Join(parts, ", ")
}

// Requirement is what a run must have checked (presetsim run --require):
// every rule, every rule the profile does not excuse, the rules listed, or
// a share of all rules.
type Requirement struct {
	// All: every rule checked, fully.
	All bool
	// Claimed: every rule checked but those the profile does not claim or
	// that do not apply to the implementation.
	Claimed bool
	// Rules must each be checked, fully.
	Rules []rule.ID
	// Share, above zero, is the share of all rules that must be checked.
	Share float64
}

// ParseRequirement reads --require's value: "all", "claimed", rule ids
// separated by commas ("R2.1,R4.2"), or a share ("80%").
func ParseRequirement(s string) (Requirement, error) {
	switch s = strings.TrimSpace(s); {
	case s == "all":
		return Requirement{All: true}, nil
	case s == "claimed":
		return Requirement{Claimed: true}, nil
	case strings.HasSuffix(s, "%"):
		p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || p <= 0 || p > 100 {
			return Requirement{}, fmt.Errorf("%q: a share is a percentage above 0 and at most 100, such as 80%%", s)
		}
		return Requirement{Share: p / 100}, nil
	}
	var req Requirement
	for _, part := range strings.Split(s, ",") {
		id, ok := rule.Parse(strings.TrimPrefix(strings.TrimSpace(part), "@"))
		if !ok || !rule.Known(id) {
			return Requirement{}, fmt.Errorf("%q: want all, claimed, a share such as 80%%, or rule ids of the specification such as R2.1,R4.2", part)
		}
		req.Rules = append(req.Rules, id)
	}
	return req, nil
}

// Unmet says what of the requirement the coverage does not meet, "" when
// it meets all of it.
func (req Requirement) Unmet(c *Coverage) string {
	var missing []NotChecked
	for _, n := range c.NotChecked {
		switch {
		case req.All, req.Claimed && !slices.Contains(excusedByClaims, n.Why), slices.Contains(req.Rules, n.Rule):
			missing = append(missing, n)
		}
	}
	total := len(c.Checked) + len(c.NotChecked)
	if req.Share > 0 && total > 0 && float64(len(c.Checked)) < req.Share*float64(total) {
		return fmt.Sprintf("%d of %d rules checked, %.0f%% required", len(c.Checked), total, req.Share*100)
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("%d rules not checked: %s", len(missing), grouped(missing))
}
