package explain

import (
	"testing"

	"presetsim.dev/presetsim/rule"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// TestSelectionReasons: a selector that does not match names the first
// requirement that fails, as a person writes it, and what the pod has.
func TestSelectionReasons(t *testing.T) {
	tests := []struct {
		name     string
		selector metav1.LabelSelector
		labels   map[string]string
		want     string
	}{
		{name: "matches", selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "web"}}, labels: map[string]string{"role": "web"}},
		{name: "the empty selector matches every pod", labels: nil},
		{name: "equals, another value", selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "web"}}, labels: map[string]string{"role": "db"},
			want: "the selector wants role=web and the pod has role=db"},
		{name: "equals, no label", selector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "web"}},
			want: "the selector wants role=web and the pod has no label role"},
		{name: "In", selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"front", "edge"}}}},
			labels: map[string]string{"tier": "back"}, want: "the selector wants tier In [edge, front] and the pod has tier=back"},
		{name: "NotIn", selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"back"}}}},
			labels: map[string]string{"tier": "back"}, want: "the selector wants tier NotIn [back] and the pod has tier=back"},
		{name: "Exists", selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "canary", Operator: metav1.LabelSelectorOpExists}}},
			want: "the selector wants a label canary and the pod has no label canary"},
		{name: "DoesNotExist", selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "canary", Operator: metav1.LabelSelectorOpDoesNotExist}}},
			labels: map[string]string{"canary": "yes"}, want: "the selector wants no label canary and the pod has canary=yes"},
		{name: "the first failing requirement, in key order", selector: metav1.LabelSelector{MatchLabels: map[string]string{"b": "2", "a": "1"}},
			labels: map[string]string{"b": "3"}, want: "the selector wants a=1 and the pod has no label a"},
		{name: "invalid", selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "x", Operator: "Near"}}},
			want: `the preset's selector is invalid ("Near" is not a valid label selector operator), so it selects no pod`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &v1alpha1.PodPreset{Spec: v1alpha1.PodPresetSpec{Selector: tt.selector}}
			if got := selects(p, tt.labels); got != tt.want {
				t.Errorf("selects() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPodOrder: verdicts come in the order the presets are given, and a
// preset of the pod's namespace that conflicts holds the others back.
func TestPodOrder(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "shop", Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: "A", Value: "pod"}}}}}}
	preset := func(name, ns, value string) *v1alpha1.PodPreset {
		return &v1alpha1.PodPreset{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: "1"},
			Spec: v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{{Name: "A", Value: value}}}}
	}
	got := Pod(pod, []*v1alpha1.PodPreset{preset("z", "shop", "other"), preset("a", "shop", "pod"), preset("m", "", "pod")})
	want := []struct {
		preset, outcome string
		rule            rule.ID
	}{{"z", Conflict, rule.R4_1}, {"a", NotApplied, rule.R4_2}, {"m", NotApplied, rule.R2_2}}
	if len(got) != len(want) {
		t.Fatalf("%d verdicts, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Preset != w.preset || got[i].Outcome != w.outcome || got[i].Rule != w.rule {
			t.Errorf("verdict %d = %s, want %s %s [%s]", i, got[i], w.preset, w.outcome, w.rule)
		}
	}
}

// TestOrdinal: the order a preset applies in reads as English does,
// the teens included.
func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{
		1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 10: "10th", 11: "11th", 12: "12th", 13: "13th",
		14: "14th", 21: "21st", 22: "22nd", 23: "23rd", 101: "101st", 111: "111th", 112: "112th", 113: "113th",
	} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}
