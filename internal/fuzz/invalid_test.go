package fuzz

import (
	"math/rand/v2"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
)

// TestGeneratedPresetsValid: the generator's presets (and those its
// histories create again) are valid unless a breaker made them invalid, and every breaker makes any generated preset
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
		if h := c.Recreate; h != nil && !slices.ContainsFunc(c.Presets, func(p *v1alpha1.PodPreset) bool { return p.Name == h.Preset && len(model.Validate(p)) > 0 }) {
			// (An invalid preset is never created, so never created again.)
			if r := model.Validate(&v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Name: h.Preset}, Spec: h.Spec}); len(r) > 0 {
				t.Fatalf("seed %d: the preset %s created again is invalid: %v", seed, h.Preset, r)
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

// TestFollowUpLabelsValid: a follow-up's label is one the API server takes on
// any pod, even where the case's invalid preset selects by a key no pod can
// have: the update is the implementation's to judge, never refused by
// chance.
func TestFollowUpLabelsValid(t *testing.T) {
	followUps := 0
	for seed := uint64(0); seed < 4000; seed++ {
		c := Generate(seed)
		if c.FollowUp == nil {
			continue
		}
		followUps++
		k, v := c.FollowUp.Label[0], c.FollowUp.Label[1]
		if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(errs) > 0 {
			t.Fatalf("seed %d: follow-up label %s=%s: %v", seed, k, v, errs)
		}
	}
	if followUps == 0 {
		t.Fatal("no case has a follow-up")
	}
}
