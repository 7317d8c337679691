package attribution

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/compare/valuediff"
)

func TestAttribute(t *testing.T) {
	tests := []struct {
		name                 string
		narrowed, candidates []string
		tags                 []string
		want                 []string
	}{
		{"narrowed within the tags", []string{"R4.2"}, []string{"R4.2", "R4.4", "R2.4"}, []string{"@R4.2", "@R4.4", "@events"}, []string{"R4.2"}},
		{"candidates within the tags when the narrowing is outside them", []string{"R3.7"}, []string{"R4.2", "R4.4", "R3.7"}, []string{"@R4.2", "@R4.4"}, []string{"R4.2", "R4.4"}},
		{"the tags when the step checks none of them", nil, []string{"R3.7"}, []string{"@R2.6"}, []string{"R2.6"}},
		{"the candidates when the scenario has no rule tags", nil, []string{"R4.3"}, []string{"@events"}, []string{"R4.3"}},
		{"nothing for an unowned setup step in an untagged scenario", nil, nil, nil, nil},
		{"feature and scenario tags merge without duplicates", nil, []string{"R1.5", "R1.8"}, []string{"@R1.8", "@R1.5", "@R1.5"}, []string{"R1.5", "R1.8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Attribute(tt.narrowed, tt.candidates, tt.tags); !slices.Equal(got, tt.want) {
				t.Errorf("Attribute(%v, %v, %v) = %v, want %v", tt.narrowed, tt.candidates, tt.tags, got, tt.want)
			}
		})
	}
}

func TestRuleTags(t *testing.T) {
	got := RuleTags([]string{"@R2.4", "@events", "@R10.12", "@Rx.1", "@R1", "R3.1", "@serial"})
	if want := []string{"R2.4", "R10.12"}; !slices.Equal(got, want) {
		t.Errorf("RuleTags = %v, want %v", got, want)
	}
}

func TestDifferenceRules(t *testing.T) {
	const prefix = "podpreset.admission.kubernetes.io/"
	diff := func(path, want, got string) error {
		return &compare.Mismatch{Differences: []valuediff.Difference{{Path: path, Want: want, Got: got}}}
	}
	tests := []struct {
		name   string
		err    error
		has    []string
		hasNot []string
	}{
		{"a missing applied annotation is R3.7", diff("metadata.annotations["+prefix+"podpreset-a]", `"12"`, "<absent>"), []string{"R3.7"}, []string{"R2.4"}},
		{"an applied annotation that should not be there is about selection", diff("metadata.annotations["+prefix+"podpreset-a]", "<absent>", `"12"`), []string{"R2.2", "R2.3", "R2.4", "R4.2"}, []string{"R3.7"}},
		{"the pod's own annotation lost", diff("metadata.annotations[team]", `"a"`, "<absent>"), []string{"R3.7", "R4.4"}, nil},
		{"an extra item may be a duplicate", diff("spec.containers[c].env[A]", "<absent>", `{"name":"A"}`), []string{"R3.4", "R2.3"}, []string{"R4.4"}},
		{"a missing item", diff("spec.volumes[v]", `{"name":"v"}`, "<absent>"), []string{"R3.1", "R4.4"}, []string{"R3.4"}},
		{"a value rewritten", diff("spec.containers[c].env[A].value", `"1"`, `"2"`), []string{"R4.4"}, []string{"R2.4"}},
		{"not a comparison: not narrowed", errors.New("pod \"x\" not found"), nil, []string{"R3.7"}},
		{"wrapped comparisons of several pods", fmt.Errorf("2 of 2 pods differ:\n%w", errors.Join(
			fmt.Errorf("pod a:\n%w", diff("metadata.annotations["+prefix+"podpreset-a]", `"1"`, "<absent>")),
			fmt.Errorf("pod b:\n%w", diff("spec.initContainers[i].env[A]", `{"name":"A"}`, "<absent>")))), []string{"R3.7", "R3.2"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DifferenceRules(tt.err, prefix)
			for _, r := range tt.has {
				if !slices.Contains(got, r) {
					t.Errorf("DifferenceRules = %v, want it to hold %s", got, r)
				}
			}
			for _, r := range tt.hasNot {
				if slices.Contains(got, r) {
					t.Errorf("DifferenceRules = %v, want it without %s", got, r)
				}
			}
		})
	}
}
