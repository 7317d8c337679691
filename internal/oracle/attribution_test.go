package oracle

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"presetsim.dev/presetsim/rule"

	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/compare/valuediff"
)

func TestAttribute(t *testing.T) {
	tests := []struct {
		name                 string
		narrowed, candidates []rule.ID
		tags                 []string
		want                 []rule.ID
	}{
		{"narrowed within the tags", []rule.ID{rule.R4_2}, []rule.ID{rule.R4_2, rule.R4_4, rule.R2_4}, []string{"@R4.2", "@R4.4", "@events"}, []rule.ID{rule.R4_2}},
		{"candidates within the tags when the narrowing is outside them", []rule.ID{rule.R3_7}, []rule.ID{rule.R4_2, rule.R4_4, rule.R3_7}, []string{"@R4.2", "@R4.4"}, []rule.ID{rule.R4_2, rule.R4_4}},
		{"the tags when the step checks none of them", nil, []rule.ID{rule.R3_7}, []string{"@R2.6"}, []rule.ID{rule.R2_6}},
		{"the candidates when the scenario has no rule tags", nil, []rule.ID{rule.R4_3}, []string{"@events"}, []rule.ID{rule.R4_3}},
		{"nothing for an unowned setup step in an untagged scenario", nil, nil, nil, nil},
		{"feature and scenario tags merge without duplicates", nil, []rule.ID{rule.R1_5, rule.R1_8}, []string{"@R1.8", "@R1.5", "@R1.5"}, []rule.ID{rule.R1_5, rule.R1_8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Attribute(tt.narrowed, tt.candidates, tt.tags); !slices.Equal(got, tt.want) {
				t.Errorf("Attribute(%v, %v, %v) = %v, want %v", tt.narrowed, tt.candidates, tt.tags, got, tt.want)
			}
		})
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
		has    []rule.ID
		hasNot []rule.ID
	}{
		{"a missing applied annotation is R3.7", diff("metadata.annotations["+prefix+"podpreset-a]", `"12"`, "<absent>"), []rule.ID{rule.R3_7}, []rule.ID{rule.R2_4}},
		{"an applied annotation that should not be there is about selection", diff("metadata.annotations["+prefix+"podpreset-a]", "<absent>", `"12"`), []rule.ID{rule.R2_2, rule.R2_3, rule.R2_4, rule.R4_2}, []rule.ID{rule.R3_7}},
		{"the pod's own annotation lost", diff("metadata.annotations[team]", `"a"`, "<absent>"), []rule.ID{rule.R3_7, rule.R4_4}, nil},
		{"an extra item may be a duplicate", diff("spec.containers[c].env[A]", "<absent>", `{"name":"A"}`), []rule.ID{rule.R3_4, rule.R2_3}, []rule.ID{rule.R4_4}},
		{"a missing item", diff("spec.volumes[v]", `{"name":"v"}`, "<absent>"), []rule.ID{rule.R3_1, rule.R4_4}, []rule.ID{rule.R3_4}},
		{"a value rewritten", diff("spec.containers[c].env[A].value", `"1"`, `"2"`), []rule.ID{rule.R4_4}, []rule.ID{rule.R2_4}},
		{"not a comparison: not narrowed", errors.New("pod \"x\" not found"), nil, []rule.ID{rule.R3_7}},
		{"wrapped comparisons of several pods", fmt.Errorf("2 of 2 pods differ:\n%w", errors.Join(
			fmt.Errorf("pod a:\n%w", diff("metadata.annotations["+prefix+"podpreset-a]", `"1"`, "<absent>")),
			fmt.Errorf("pod b:\n%w", diff("spec.initContainers[i].env[A]", `{"name":"A"}`, "<absent>")))), []rule.ID{rule.R3_7, rule.R3_2}, nil},
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
