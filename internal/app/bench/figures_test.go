package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFigures: the pod-create series give the minimal scenario over a
// bare pod create and, per series of presets, the policy's added time
// over the webhook's, each beside its goal; written as JSON a machine
// reads back.
func TestFigures(t *testing.T) {
	ms := func(n float64) []time.Duration { return []time.Duration{time.Duration(n * float64(time.Millisecond))} }
	configs := []latencyConfig{
		{name: "bare"},
		{name: "webhook 1", webhook: true, presets: 1, matching: 1},
		{name: "policy 1", policy: true, presets: 1, matching: 1},
		{name: "policy 1 never", policy: true, presets: 1, matching: 1, reinvocation: "Never"},
		{name: "webhook 100", webhook: true, presets: 100, matching: 100},
		{name: "policy 100", policy: true, presets: 100, matching: 100},
	}
	lat := [][]time.Duration{ms(4), ms(6), ms(5), ms(4.5), ms(8), ms(9)}
	var f Figures
	f.latencies(configs, lat, 10*time.Millisecond)
	tests := []struct {
		name string
		got  *Ratio
		want Ratio
	}{
		{name: "minimal scenario", got: f.MinimalScenarioOverPodCreate, want: Ratio{Value: 2.5, Goal: 3, Met: true}},
		{name: "one preset", got: ptr(f.PolicyOverWebhook["1 presets, 1 matching"]), want: Ratio{Value: 0.5, Goal: 1, Met: true}},
		{name: "100 presets all matching", got: ptr(f.PolicyOverWebhook["100 presets, 100 matching"]), want: Ratio{Value: 1.25, Goal: 1.25, Met: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got == nil || *tt.got != tt.want {
				t.Errorf("%+v, want %+v", tt.got, tt.want)
			}
		})
	}
	if len(f.PolicyOverWebhook) != 2 {
		t.Errorf("%d policy series, want 2 (the policy reinvoked Never is not the policy as it ships)", len(f.PolicyOverWebhook))
	}
	path := filepath.Join(t.TempDir(), "figures.json")
	if err := f.write(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"date", "minimalScenarioOverPodCreate", "policyOverWebhook"} {
		if _, ok := back[key]; !ok {
			t.Errorf("%s: no %s", data, key)
		}
	}
}

func ptr(r Ratio) *Ratio {
	if r == (Ratio{}) {
		return nil
	}
	return &r
}

// TestRates: a rate is met at its goal or above; one without a goal is
// neither met nor not.
func TestRates(t *testing.T) {
	tests := []struct {
		name        string
		value, goal float64
		met         string
	}{
		{name: "below", value: 23.3, goal: 100, met: "false"},
		{name: "at the goal", value: 30, goal: 30, met: "true"},
		{name: "no goal", value: 475.9, met: "absent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := atLeast(tt.value, tt.goal)
			got := "absent"
			if r.Met != nil {
				got = map[bool]string{true: "true", false: "false"}[*r.Met]
			}
			if got != tt.met {
				t.Errorf("met %s, want %s", got, tt.met)
			}
		})
	}
}
