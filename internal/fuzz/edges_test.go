package fuzz

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// apartTag is the end of a key setApart tagged.
var apartTag = regexp.MustCompile(`[-_]?p[0-9]+_?$`)

// TestEdgeDistribution: the share of generated cases that reach each edge
// (R6.4), have a history (R6.1) and have presets set apart (R3.3, R3.4) is the one the package doc gives, within
// a point or two over 10,000 cases.
func TestEdgeDistribution(t *testing.T) {
	const n = 10000
	count := map[string]int{}
	for i := range n {
		c := Generate(CaseSeed(1, i))
		long, many, items, containers := false, 0, false, len(c.Pod.Spec.Containers) >= manyContainers
		setApart := false
		for _, p := range c.Presets {
			setApart = setApart || slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return apartTag.MatchString(v.Name) }) ||
				slices.ContainsFunc(p.Spec.Env, func(e corev1.EnvVar) bool { return apartTag.MatchString(e.Name) }) ||
				slices.ContainsFunc(p.Spec.EnvFrom, func(e corev1.EnvFromSource) bool { return apartTag.MatchString(e.Prefix) })
			long = long || len(p.Name) == MaxPresetName && strings.Contains(p.Name, ".")
			if strings.HasPrefix(p.Name, "many-") {
				many++
			}
			items = items || len(p.Spec.Env) >= manyItems
		}
		for edge, reached := range map[string]bool{
			"any edge":                     long || many > 0 || items || containers,
			"names at their longest":       long,
			"ten presets and more":         many >= manyPresets,
			"a preset of forty items":      items,
			"many containers":              containers,
			"a preset created again":       c.Recreate != nil,
			"requests after the pod's one": c.FollowUp != nil,
			"presets set apart":            setApart,
		} {
			if reached {
				count[edge]++
			}
		}
	}
	for edge, want := range map[string]float64{
		"any edge":                     11,
		"names at their longest":       5,
		"ten presets and more":         4.6,
		"a preset of forty items":      4.6,
		"many containers":              4.8,
		"a preset created again":       18.8,
		"requests after the pod's one": 25,
		"presets set apart":            10.4,
	} {
		got := 100 * float64(count[edge]) / n
		t.Logf("%-30s %5.1f %%", edge, got)
		if got < want-2 || got > want+2 {
			t.Errorf("%s: %.1f %% of the cases, want about %.1f %%", edge, got, want)
		}
	}
}
