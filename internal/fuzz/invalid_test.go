package fuzz

import (
	"math/rand/v2"
	"testing"

	"presetsim.dev/presetsim/presets/model"
)

// TestGeneratedPresetsValid: the generator's presets are valid unless a
// breaker made them invalid, and every breaker makes any generated preset
// invalid (model.Validate), so that "invalid" in a case is never chance.
func TestGeneratedPresetsValid(t *testing.T) {
	broken := 0
	for seed := uint64(0); seed < 2000; seed++ {
		c := Generate(seed)
		invalid := 0
		for _, p := range c.Presets {
			if len(model.Validate(p)) > 0 {
				invalid++
			}
		}
		for _, p := range c.Others {
			if r := model.Validate(p); len(r) > 0 {
				t.Fatalf("seed %d: another namespace's preset %s is invalid: %v", seed, p.Name, r)
			}
		}
		if invalid > 1 {
			t.Fatalf("seed %d: %d invalid presets, want at most one", seed, invalid)
		}
		broken += invalid
	}
	if broken < 2000*InvalidPercent/100/2 || broken > 2000*InvalidPercent/100*2 {
		t.Errorf("%d of 2000 cases have an invalid preset, want about %d%%", broken, InvalidPercent)
	}
	for _, b := range breakers {
		t.Run(b.name, func(t *testing.T) {
			for seed := uint64(0); seed < 200; seed++ {
				g := gen{rand.New(rand.NewPCG(seed, seed))}
				p := g.preset("a", "default")
				b.apply(g, p)
				if len(model.Validate(p)) == 0 {
					t.Fatalf("seed %d: the preset is still valid: %+v", seed, p.Spec)
				}
			}
		})
	}
}

// TestNamesPath: a refusal names an offending field by its path or by the
// list item a duplicate key belongs to.
func TestNamesPath(t *testing.T) {
	for _, tc := range []struct {
		name, msg, path string
		want            bool
	}{
		{"the path", `spec.env[0].name: Invalid value: "A=1"`, "spec.env[0].name", true},
		{"the list item of a duplicate key", `spec.volumes[1]: Duplicate value: map[string]interface {}{"name":"data"}`, "spec.volumes[1].name", true},
		{"another item", `spec.volumes[0]: Duplicate value`, "spec.volumes[1].name", false},
		{"no path", `admission webhook denied the request: invalid preset`, "spec.selector.matchExpressions[0].operator", false},
		{"a field outside a list is not widened", `spec: Invalid value`, "spec.selector", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := namesPath(tc.msg, tc.path); got != tc.want {
				t.Errorf("namesPath(%q, %q) = %v, want %v", tc.msg, tc.path, got, tc.want)
			}
		})
	}
}
