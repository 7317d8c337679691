package profile

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
)

// Behaviour is how an implementation departs from the specification by
// design: documented choices, not accidents, each an option of the model
// (Options). A check that fails while the implementation did exactly what
// the model does under these options is reported "differs as declared";
// every other failure is still a failure.
type Behaviour struct {
	// Conflicts is what the implementation does when a matching preset
	// conflicts with the pod or another preset (R4.2): ConflictSkipAll, the
	// specification's, when empty.
	Conflicts string `yaml:"conflicts"`
	// Validation is how much of R1.3–R1.8 its API enforces: ValidationFull,
	// the specification's, when empty.
	Validation string `yaml:"validation"`
	// Order is the order it applies presets in (R3.6): OrderName when empty.
	Order string `yaml:"order"`
	// InitContainers says whether init containers get the presets' items
	// (R3.2): InitInjected when empty, unless the profile leaves the
	// initContainers capability unclaimed.
	InitContainers string `yaml:"initContainers"`
	// EnvFrom is how envFrom entries are compared (R3.4, R3.5, R4.1):
	// EnvFromCompared when empty, unless the profile leaves the
	// envFromConflicts capability unclaimed (then EnvFromAppended).
	EnvFrom string `yaml:"envFrom"`
	// Propagation is how long after a change of a preset the
	// implementation may still decide admissions by the presets as they
	// stood before (R6.1), a duration ("5s"); DefaultPropagation when
	// empty. Within it the outcome under the old set or under the new one
	// is right; after it, only the new one.
	Propagation string `yaml:"propagation"`
}

// DefaultPropagation is the propagation window of a profile that declares
// none (R6.1).
const DefaultPropagation = 5 * time.Second

// Propagation is the profile's propagation window (R6.1).
func (p *Profile) Propagation() time.Duration {
	if d, err := time.ParseDuration(p.Spec.Behaviour.Propagation); err == nil && d > 0 {
		return d
	}
	return DefaultPropagation
}

// Values of Behaviour's settings; the first of each is the specification's.
const (
	ConflictSkipAll    = "skip-all"    // no preset applies; the pod is admitted as submitted
	ConflictReject     = "reject"      // the pod is rejected
	ConflictSkipPreset = "skip-preset" // only the conflicting presets are skipped
	ConflictApply      = "apply"       // presets apply anyway: items overwritten or duplicated

	ValidationFull   = "full"   // every rule of R1
	ValidationSchema = "schema" // the OpenAPI schema only: no R1.3–R1.8 checks beyond it
	ValidationNone   = "none"   // anything is accepted

	OrderName        = "name"        // by name (R3.6)
	OrderUnspecified = "unspecified" // an order the implementation does not promise

	InitInjected  = "injected"  // init containers get the items (R3.2)
	InitUntouched = "untouched" // init containers are left alone

	EnvFromCompared     = "compared"     // by key: identical skipped, different a conflict
	EnvFromDeduplicated = "deduplicated" // identical skipped, any other appended
	EnvFromAppended     = "appended"     // every entry appended, duplicates included
	// every entry appended, except one identical to an entry the container
	// was submitted with (Kubeflow's JSON patch library diffs lists as sets)
	EnvFromAppendedUnlessSubmitted = "appended-unless-submitted"
)

// settings are the values each Behaviour setting takes, the
// specification's first.
var settings = map[string][]string{
	"conflicts":      {ConflictSkipAll, ConflictReject, ConflictSkipPreset, ConflictApply},
	"validation":     {ValidationFull, ValidationSchema, ValidationNone},
	"order":          {OrderName, OrderUnspecified},
	"initContainers": {InitInjected, InitUntouched},
	"envFrom":        {EnvFromCompared, EnvFromDeduplicated, EnvFromAppended, EnvFromAppendedUnlessSubmitted},
}

// Difference is one declared departure from the specification: the rules it
// affects and the kinds of checks that show it ("admitted": a request the
// specification admits is refused; "rejected": one it rejects is admitted;
// "content": a pod's content; "events", "warnings").
type Difference struct {
	Setting, Value string
	Rules          []rule.ID
	Checks         []string
}

// String is "conflicts: reject (R4.2, R4.4)".
func (d Difference) String() string {
	return fmt.Sprintf("%s: %s (%s)", d.Setting, d.Value, rule.Join(d.Rules, ", "))
}

// differences are what each non-specification value declares.
var differences = []Difference{
	{"conflicts", ConflictReject, []rule.ID{rule.R4_2, rule.R4_4}, []string{"admitted", "content"}},
	{"conflicts", ConflictReject, []rule.ID{rule.R4_3}, []string{"events", "warnings"}},
	{"conflicts", ConflictSkipPreset, []rule.ID{rule.R4_2}, []string{"content"}},
	{"conflicts", ConflictApply, []rule.ID{rule.R4_2, rule.R4_4}, []string{"content"}},
	{"validation", ValidationSchema, []rule.ID{rule.R1_3, rule.R1_4, rule.R1_5, rule.R1_6, rule.R1_7, rule.R1_8}, []string{"rejected"}},
	{"validation", ValidationNone, []rule.ID{rule.R1_2, rule.R1_3, rule.R1_4, rule.R1_5, rule.R1_6, rule.R1_7, rule.R1_8}, []string{"rejected"}},
	{"order", OrderUnspecified, []rule.ID{rule.R3_6}, []string{"content"}},
	{"initContainers", InitUntouched, []rule.ID{rule.R3_2}, []string{"content"}},
	{"envFrom", EnvFromDeduplicated, []rule.ID{rule.R4_1, rule.R3_5}, []string{"content"}},
	{"envFrom", EnvFromAppended, []rule.ID{rule.R3_4, rule.R4_1, rule.R3_5}, []string{"content"}},
	{"envFrom", EnvFromAppendedUnlessSubmitted, []rule.ID{rule.R3_4, rule.R4_1, rule.R3_5}, []string{"content"}},
}

// Differences are the profile's declared departures from the specification.
func (p *Profile) Differences() []Difference {
	var out []Difference
	for _, d := range differences {
		if p.setting(d.Setting) == d.Value {
			out = append(out, d)
		}
	}
	return out
}

// Declared returns the declared difference that affects rule id in a way a
// check of the kind shows, if the profile declares one.
func (p *Profile) Declared(id rule.ID, shows string) (Difference, bool) {
	for _, d := range p.Differences() {
		if slices.Contains(d.Rules, id) && slices.Contains(d.Checks, shows) {
			return Difference{Setting: d.Setting, Value: d.Value, Rules: []rule.ID{id}, Checks: d.Checks}, true
		}
	}
	return Difference{}, false
}

// Declarations are the profile's settings that depart from the
// specification, one per setting, with every rule each affects.
func (p *Profile) Declarations() []Difference {
	var out []Difference
	for _, d := range p.Differences() {
		i := slices.IndexFunc(out, func(x Difference) bool { return x.Setting == d.Setting })
		if i < 0 {
			out = append(out, Difference{Setting: d.Setting, Value: d.Value})
			i = len(out) - 1
		}
		for _, r := range d.Rules {
			if !slices.Contains(out[i].Rules, r) {
				out[i].Rules = append(out[i].Rules, r)
			}
		}
		for _, c := range d.Checks {
			if !slices.Contains(out[i].Checks, c) {
				out[i].Checks = append(out[i].Checks, c)
			}
		}
	}
	return out
}

// OptionsWithout are the model's options with one setting set back to the
// specification's value: what the model would say without that
// declaration.
func (p *Profile) OptionsWithout(setting string) model.Options {
	q := *p
	b := &q.Spec.Behaviour
	if f, ok := b.fields()[setting]; ok {
		*f = settings[setting][0]
	}
	return q.Options()
}

// fields are the behaviour's settings by name, to read and default.
func (b *Behaviour) fields() map[string]*string {
	return map[string]*string{"conflicts": &b.Conflicts, "validation": &b.Validation, "order": &b.Order,
		"initContainers": &b.InitContainers, "envFrom": &b.EnvFrom}
}

func (p *Profile) setting(name string) string { return *p.Spec.Behaviour.fields()[name] }

// checkBehaviour reports unknown values.
func (p *Profile) checkBehaviour() []problem {
	var out []problem
	for _, name := range slices.Sorted(maps.Keys(settings)) {
		if v := p.setting(name); v != "" && !slices.Contains(settings[name], v) {
			out = append(out, problem{"spec.behaviour." + name, fmt.Sprintf("unknown value %q (known: %s)", v, strings.Join(settings[name], ", "))})
		}
	}
	if v := p.Spec.Behaviour.Propagation; v != "" {
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			out = append(out, problem{"spec.behaviour.propagation", fmt.Sprintf("must be a positive duration such as 5s or 500ms, got %q", v)})
		}
	}
	return out
}

// setDefaults sets every unset setting to the specification's value.
func (b *Behaviour) setDefaults() {
	for name, field := range b.fields() {
		if *field == "" {
			*field = settings[name][0]
		}
	}
}

// Options are the model's options for the profile's declarations: the
// variant of the specification its verdicts are computed from.
func (p *Profile) Options() model.Options {
	b := p.Spec.Behaviour
	o := model.Options{Conflicts: model.Conflicts(b.Conflicts), Order: model.Order(b.Order)}
	o.Variant.InitContainersUntouched = b.InitContainers == InitUntouched
	switch b.EnvFrom {
	case EnvFromDeduplicated:
		o.Variant.EnvFrom = merge.EnvFromDeduplicated
	case EnvFromAppended:
		o.Variant.EnvFrom = merge.EnvFromAppended
	case EnvFromAppendedUnlessSubmitted:
		o.Variant.EnvFrom = merge.EnvFromAppendedUnlessSubmitted
	}
	return o
}
