package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Admission is one pod a scenario's step submitted and what came back:
// the model's input (the presets of the pod's namespace at that moment,
// the pod as submitted, in canonical terms) beside the implementation's
// outcome, so that a declared difference can be checked against the
// model (harness.md, "Verdicts come from a model").
type Admission struct {
	// Presets are the presets the scenario had created in the pod's
	// namespace and not deleted, with their resourceVersions.
	Presets []*v1alpha1.PodPreset
	// Pod is the pod as submitted: canonical annotation keys, ${rv:…}
	// expanded, namespace physical.
	Pod    *corev1.Pod
	DryRun bool
	// Returned is what the API server returned (nil when refused), Err
	// the refusal, Warnings the admission warnings.
	Returned *corev1.Pod
	Err      error
	Warnings []string
	// Unsent is true when the harness saw that the API server did not send
	// this creation to the implementation (World.PodCreateSent: the count
	// of the pod's name did not grow with it); false when it was sent, or
	// when the harness cannot tell.
	Unsent bool
}

// Admissions are the pods the scenario's steps submitted, in order. Pods
// a controller made (a workload's) are not among them.
func (s *Scenario) Admissions() []Admission {
	for ; s.converted < len(s.recorded); s.converted++ {
		if a, ok := s.recorded[s.converted].admission(); ok {
			s.admissions = append(s.admissions, a)
		}
	}
	return slices.Clone(s.admissions)
}

// recordedAdmission is an admission as the scenario keeps it until a
// step asks (Admissions): the objects unconverted, since most runs (fuzz's
// cases, a scenario whose checks pass) never ask.
type recordedAdmission struct {
	a                   Admission // without Pod and Returned
	canonical, returned *unstructured.Unstructured
}

// admission converts a recorded admission; false when the converter
// cannot read the pod: the API server decodes what it accepts, and this
// one it did not.
func (r recordedAdmission) admission() (Admission, bool) {
	a := r.a
	var pod corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(r.canonical.Object, &pod); err != nil {
		return Admission{}, false
	}
	a.Pod = &pod
	if a.Err == nil && r.returned != nil {
		if p, err := backend.ToPod(r.returned); err == nil {
			a.Returned = p
		}
	}
	return a, true
}

// presetsOf are the scenario's live presets in a logical namespace, by name.
func (s *Scenario) presetsOf(logical string) []*v1alpha1.PodPreset {
	byName := s.presets[logical]
	var out []*v1alpha1.PodPreset
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[name].DeepCopy())
	}
	return out
}

// rememberPreset records a canonical preset the scenario created or
// updated, as stored (its resourceVersion).
func (s *Scenario) rememberPreset(logical string, canonical *unstructured.Unstructured, stored *unstructured.Unstructured) error {
	var p v1alpha1.PodPreset
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(canonical.Object, &p); err != nil {
		return fmt.Errorf("unable to read PodPreset %q: %w", canonical.GetName(), err)
	}
	p.Namespace, p.Name, p.ResourceVersion = stored.GetNamespace(), stored.GetName(), stored.GetResourceVersion()
	if s.presets[logical] == nil {
		s.presets[logical] = map[string]*v1alpha1.PodPreset{}
	}
	s.presets[logical][p.Name] = &p
	return nil
}

// forgetPreset records that a step deleted a preset: the pods submitted
// after it are admitted without it.
func (s *Scenario) forgetPreset(physicalNS, name string) {
	delete(s.presets[s.logicalOf(physicalNS)], name)
}

// rememberAdmission records a pod's admission; canonical is the pod as
// submitted before its annotation keys were translated, warnings the
// request's own. The scenario owns canonical; returned is shared with the
// step that created the pod, which reads it and changes nothing.
func (s *Scenario) rememberAdmission(logical string, canonical, returned *unstructured.Unstructured, dryRun bool, warnings []string, err error, unsent bool) {
	s.recorded = append(s.recorded, recordedAdmission{
		a:         Admission{Presets: s.presetsOf(logical), DryRun: dryRun, Err: err, Warnings: warnings, Unsent: unsent},
		canonical: canonical, returned: returned,
	})
}

// isExpandable reports whether an object mentions ${rv:…} at all.
func isExpandable(u *unstructured.Unstructured) bool {
	return mentions(u.Object, "${rv:")
}

// mentions reports whether a JSON value has a string (a key or a value)
// that contains s.
func mentions(v any, s string) bool {
	switch v := v.(type) {
	case string:
		return strings.Contains(v, s)
	case map[string]any:
		for k, x := range v {
			if strings.Contains(k, s) || mentions(x, s) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if mentions(x, s) {
				return true
			}
		}
	}
	return false
}
