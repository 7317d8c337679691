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
}

// Admissions are the pods the scenario's steps submitted, in order. Pods
// a controller made (a workload's) are not among them.
func (s *Scenario) Admissions() []Admission { return slices.Clone(s.admissions) }

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

// ForgetPreset records that a step deleted a preset: the pods submitted
// after it are admitted without it.
func (s *Scenario) ForgetPreset(physicalNS, name string) {
	delete(s.presets[s.LogicalOf(physicalNS)], name)
}

// rememberAdmission records a pod's admission; canonical is the pod as
// submitted before its annotation keys were translated, warnings the
// request's own.
func (s *Scenario) rememberAdmission(logical string, canonical, returned *unstructured.Unstructured, dryRun bool, warnings []string, err error) {
	var pod corev1.Pod
	if cerr := runtime.DefaultUnstructuredConverter.FromUnstructured(canonical.Object, &pod); cerr != nil {
		return // the API server decodes what it accepts; this pod it did not
	}
	a := Admission{Presets: s.presetsOf(logical), Pod: &pod, DryRun: dryRun, Err: err, Warnings: warnings}
	if err == nil {
		if p, perr := backend.ToPod(returned); perr == nil {
			a.Returned = p
		}
	}
	s.admissions = append(s.admissions, a)
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
