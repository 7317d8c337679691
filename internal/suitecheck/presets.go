package suitecheck

import (
	"fmt"
	"slices"
	"strings"

	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
)

// invalidPresets are the mistakes of the presets among objs, created as a
// scenario's input, that the specification refuses (model.Validate, R1.3–
// R1.6): an API server would refuse them (envtest) or a backend without one
// would take them (offline), and either way the scenario would judge the
// implementation on what the feature file got wrong. Each names the file,
// the line, the field, the reason and the rule.
func invalidPresets(objs []manifest.Object) []error {
	var mistakes []*manifest.Error
	for _, o := range objs {
		pp, ok := o.Object.(*v1alpha1.PodPreset)
		if !ok {
			continue
		}
		for _, inv := range model.Validate(pp) {
			msg := strings.TrimPrefix(inv.Err.Error(), inv.Err.Field+": ")
			mistakes = append(mistakes, o.ErrorAt(inv.Err.Field, fmt.Sprintf("%s (%s): PodPreset %q is refused by the specification, and a scenario's input must be valid (to check a refusal, write \"When I try to create:\")", msg, inv.Rule, pp.Name)))
		}
	}
	slices.SortStableFunc(mistakes, func(a, b *manifest.Error) int { return a.Line - b.Line })
	errs := make([]error, len(mistakes))
	for i, m := range mistakes {
		errs[i] = m
	}
	return errs
}
