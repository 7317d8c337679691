package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"time"
)

// Figures are what one bench run measured, each beside its goal, for a
// machine to read (--json FILE). A figure the run did not measure is
// absent, and NotMeasured says why.
type Figures struct {
	// Date is when the run ended; Commit what it measured, when the
	// binary knows it.
	Date   string `json:"date"`
	Commit string `json:"commit,omitempty"`
	// MinimalScenarioOverPodCreate is the minimal scenario's median, one
	// at a time, as a multiple of a bare pod create's p50 in the same run.
	MinimalScenarioOverPodCreate *Ratio `json:"minimalScenarioOverPodCreate,omitempty"`
	// PolicyOverWebhook is, per series ("100 presets, 100 matching"), what
	// the policy adds to a pod create's p50 as a multiple of what the
	// webhook adds.
	PolicyOverWebhook map[string]Ratio `json:"policyOverWebhook,omitempty"`
	// ChainsawRatio is presetsim's wall time over chainsaw's fastest mode,
	// per set of features (--chainsaw).
	ChainsawRatio map[string]Ratio `json:"chainsawRatio,omitempty"`
	// FuzzCasesPerSecond: "inProcess" (the reference on envtest),
	// "offline", "external" (presetsim serve as the webhook, on envtest),
	// "policyOffline".
	FuzzCasesPerSecond map[string]Rate `json:"fuzzCasesPerSecond,omitempty"`
	// FuzzAdmissionsPerSecond is, for the same runs, the requests their
	// cases had the implementation admit, a second (no goal: to be read
	// beside a bare pod create's rate).
	FuzzAdmissionsPerSecond map[string]Rate `json:"fuzzAdmissionsPerSecond,omitempty"`
	Apply                   *ApplyFigures   `json:"apply,omitempty"`
	// ShrinkSecondsPerKind is how long fuzz took to shrink a kind of
	// disagreement of a module mutant on envtest.
	ShrinkSecondsPerKind *ShrinkFigure `json:"shrinkSecondsPerKind,omitempty"`
	// MakeTestSeconds is the wall time of the last make test that passed
	// in this checkout, when the caller knows it (--make-test-seconds).
	MakeTestSeconds *Ratio `json:"makeTestSeconds,omitempty"`
	// NotMeasured names the figures the run left out, and why.
	NotMeasured []string `json:"notMeasured,omitempty"`
}

// Ratio is a figure that should be at most its goal.
type Ratio struct {
	Value float64 `json:"value"`
	Goal  float64 `json:"goal"`
	Met   bool    `json:"met"`
}

// Rate is a figure that should be at least its goal; one without a goal
// (0) is there to be read beside the others, and neither met nor not.
type Rate struct {
	Value float64 `json:"value"`
	Goal  float64 `json:"goal,omitempty"`
	Met   *bool   `json:"met,omitempty"`
}

// ShrinkFigure is the shrinking of one mutant's kinds: their mean beside
// its goal, and the longest.
type ShrinkFigure struct {
	Mutant string  `json:"mutant"`
	Kinds  int     `json:"kinds"`
	Mean   Ratio   `json:"mean"`
	Max    float64 `json:"max"`
}

// ApplyFigures are presetsim apply's: the large generated input, and a
// preset of many items.
type ApplyFigures struct {
	Pods    int     `json:"pods"`
	Seconds Ratio   `json:"seconds"`
	PeakMiB Ratio   `json:"peakMiB"`
	MB      float64 `json:"mb"`
	// SecondsPerItems is the time for one pod and a preset of that many
	// env vars, by count ("20000"); each goal is 20,000's scaled to the
	// count (time linear in items).
	SecondsPerItems map[string]Ratio `json:"secondsPerItems"`
}

func atMost(value, goal float64) Ratio {
	return Ratio{Value: round3(value), Goal: goal, Met: value <= goal}
}

func atLeast(value, goal float64) Rate {
	r := Rate{Value: round3(value), Goal: goal}
	if goal > 0 {
		met := value >= goal
		r.Met = &met
	}
	return r
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

func (f *Figures) notMeasured(s string) { f.NotMeasured = append(f.NotMeasured, s) }

// The goals, as the project set them.
const (
	minimalScenarioGoal      = 3    // × a bare pod create's p50
	policyAllMatchingGoal    = 1.25 // × the webhook's, 100 presets all matching
	policyGoal               = 1.0  // × the webhook's, the other series
	chainsawGoal             = 0.5  // presetsim's wall over chainsaw's: twice as fast
	fuzzExternalGoal         = 30   // cases/s
	fuzzInProcessGoal        = 100  // cases/s
	fuzzPolicyOfflineGoal    = 200  // cases/s
	applySecondsGoal         = 10   // for the 50 MB input
	applyPeakMiBGoal         = 600  // for the 50 MB input
	applyItemsSecondsGoal    = 2    // for a preset of 20,000 env vars
	shrinkSecondsGoal        = 10   // per kind of disagreement, on envtest
	makeTestSecondsGoal      = 600  // make test, warm, on 2 cores
	policyAllMatchingPresets = 100
)

// write writes the figures as indented JSON to path.
func (f *Figures) write(path string) error {
	f.Date = time.Now().UTC().Format(time.RFC3339)
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				f.Commit = s.Value
			}
		}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("--json: %w", err)
	}
	return nil
}

// latencies records the figures of the pod-create series: the minimal
// scenario over a bare pod create (configs[0]), and, for each series of
// presets, what the policy adds over what the webhook adds (IfNeeded
// reinvocation, as the policy ships).
func (f *Figures) latencies(configs []latencyConfig, lat [][]time.Duration, minimal time.Duration) {
	bare := percentile(lat[0], 50)
	if bare > 0 && minimal > 0 {
		r := atMost(minimal.Seconds()/bare.Seconds(), minimalScenarioGoal)
		f.MinimalScenarioOverPodCreate = &r
	}
	for i, c := range configs {
		if !c.webhook {
			continue
		}
		for j, p := range configs {
			if !p.policy || p.reinvocation != "" || p.presets != c.presets || p.matching != c.matching {
				continue
			}
			webhook, policy := percentile(lat[i], 50)-bare, percentile(lat[j], 50)-bare
			if webhook <= 0 {
				continue
			}
			goal := policyGoal
			if c.presets == policyAllMatchingPresets && c.matching == c.presets {
				goal = policyAllMatchingGoal
			}
			if f.PolicyOverWebhook == nil {
				f.PolicyOverWebhook = map[string]Ratio{}
			}
			f.PolicyOverWebhook[fmt.Sprintf("%d presets, %d matching", c.presets, c.matching)] = atMost(policy.Seconds()/webhook.Seconds(), goal)
		}
	}
}
