package oracle

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/rule"
)

// TestLimitOfItsOwn: a pod the API server refuses because the applied
// annotation the implementation wrote is no valid key (a prefix longer than
// the specification's and a preset name of the longest) is a limit of the
// implementation's own, R6.4 first; other refusals, and the same refusal
// where the profile's key fits, are not.
func TestLimitOfItsOwn(t *testing.T) {
	longName := strings.Repeat("a", 53) // the longest a preset may have (R1.6)
	invalid := func(key string) error {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "website", field.ErrorList{
			field.Invalid(field.NewPath("metadata", "annotations"), key, "name part must be no more than 63 characters")})
	}
	kubeflowLike := profile.Canonical()
	kubeflowLike.Spec.Annotations.Applied = "poddefault.admission.kubeflow.org/poddefault-" + profile.NamePlaceholder
	want := model.Outcome{Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "website"}}, Applied: []string{longName}}
	short := want
	short.Applied = []string{"db"}
	for _, tc := range []struct {
		name      string
		profile   *profile.Profile
		want      model.Outcome
		err       error
		first     rule.ID
		saysLimit bool
	}{
		{"the key of a longer prefix and the longest name", kubeflowLike, want, invalid("poddefault.admission.kubeflow.org/poddefault-" + longName), rule.R6_4, true},
		{"the specification's key fits the longest name", profile.Canonical(), want, invalid("x"), rule.R3_5, false},
		{"a short name fits the longer prefix", kubeflowLike, short, invalid("x"), rule.R3_5, false},
		{"a refusal that is not of the annotations", kubeflowLike, want, apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "website", field.ErrorList{
			field.Duplicate(field.NewPath("spec", "volumes").Index(1).Child("name"), "data")}), rule.R3_5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &harness.World{Profile: tc.profile}
			d, err := compareOutcome(context.Background(), w, nil, Observed{}, "the create", false, tc.want, Request{Err: tc.err})
			if err != nil || d == nil {
				t.Fatalf("compareOutcome: %v, %v; want a disagreement", d, err)
			}
			if d.Rules[0] != tc.first {
				t.Errorf("rules %v, want %s first", d.Rules, tc.first)
			}
			if got := strings.Contains(d.Summary, "limit of its own (R6.4)"); got != tc.saysLimit {
				t.Errorf("summary %q: says R6.4 %v, want %v", d.Summary, got, tc.saysLimit)
			}
			if slices.Contains(d.Rules[1:], rule.R6_4) {
				t.Errorf("rules %v name R6.4 twice or late", d.Rules)
			}
		})
	}
}
