package oracle

import (
	"fmt"
	"slices"
	"strings"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
)

// InvalidPreset is a preset of a case that the specification refuses.
type InvalidPreset struct {
	Preset *v1alpha1.PodPreset
	// Reasons are model.Validate's.
	Reasons []model.Invalid
	// Err is the implementation API's refusal; nil when it stored the
	// preset.
	Err error
	// Unvalidated: the backend runs no API server validation (offline),
	// so the preset was not created and is not judged.
	Unvalidated bool
}

// validationDeclared reports whether the profile declares that its API
// does not enforce R1.3–R1.8 (validation: schema or none).
func validationDeclared(w *harness.World) bool {
	v := w.Profile.Spec.Behaviour.Validation
	return v == profile.ValidationSchema || v == profile.ValidationNone
}

// InvalidDisagreements judges a case's invalid preset: the API must refuse
// it (R1.3–R1.6, by the first reason's rule) with a message that names one
// of the offending field paths (R1.8). Under a declared validation: schema
// or none, either answer agrees.
func InvalidDisagreements(w *harness.World, inv *InvalidPreset) []Disagreement {
	if inv == nil || inv.Unvalidated || validationDeclared(w) {
		return nil
	}
	var (
		rules   []rule.ID
		reasons []string
	)
	for _, r := range inv.Reasons {
		if !slices.Contains(rules, r.Rule) {
			rules = append(rules, r.Rule)
		}
		reasons = append(reasons, r.Err.Error())
	}
	if inv.Err == nil {
		return []Disagreement{{Rules: rules, Aspect: InvalidStored,
			Summary: fmt.Sprintf("the invalid preset %s was stored; the specification refuses it: %s", inv.Preset.Name, oneLine(reasons[0])),
			Detail:  strings.Join(reasons, "\n")}}
	}
	msg := inv.Err.Error()
	for _, r := range inv.Reasons {
		if namesPath(msg, w.Profile.Message(r.Err.Field)) {
			return nil
		}
	}
	return []Disagreement{{Rules: []rule.ID{rule.R1_8}, Aspect: InvalidUnnamed,
		Summary: fmt.Sprintf("the invalid preset %s was refused without naming %s: %s", inv.Preset.Name, inv.Reasons[0].Err.Field, oneLine(msg)),
		Detail:  msg}}
}

// namesPath reports whether a refusal names a field path: the path itself,
// or the list item it belongs to ("spec.volumes[1]" for a duplicate
// "spec.volumes[1].name", as the API server reports a list-map key).
func namesPath(msg, path string) bool {
	if strings.Contains(msg, path) {
		return true
	}
	if i := strings.LastIndex(path, "."); i > 0 && strings.HasSuffix(path[:i], "]") {
		return strings.Contains(msg, path[:i])
	}
	return false
}
