package merge

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// labelStrings are keys and values on both sides of every rule of
// isLabelKey, isLabelValue and isDNSSubdomain.
var labelStrings = []string{
	"", "a", "A", "0", "-", "_", ".", "/", "a/", "/a", "a/b", "a/b/c", "ab", "a-b", "a_b", "a.b", "-a", "a-", "_a", "a_", ".a", "a.",
	"app", "App.Name_1", "app.kubernetes.io/name", "App.io/name", "a_b.io/name", "a-.io/name", "a.-b/name", "a..b/name", "-a.b/name",
	"example.com/", "example.com/-x", "exa mple", "a\n", "é", "a:b", "a*b",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 63) + "/b",
	strings.Repeat("a", 253) + "/b", strings.Repeat("a", 254) + "/b", strings.Repeat("a.", 126) + "a/b", "x/" + strings.Repeat("b", 64),
}

// validKey and validValue are the validations LabelSelectorAsSelector uses.
func validKey(s string) bool   { return len(content.IsLabelKey(s)) == 0 }
func validValue(s string) bool { return len(validation.IsValidLabelValue(s)) == 0 }

func TestLabelValidationAgrees(t *testing.T) {
	for _, s := range labelStrings {
		t.Run(s, func(t *testing.T) {
			checkLabelValidation(t, s)
		})
	}
}

func checkLabelValidation(t *testing.T, s string) {
	t.Helper()
	if got, want := isLabelKey(s), validKey(s); got != want {
		t.Errorf("isLabelKey(%q) = %v, content.IsLabelKey accepts it: %v", s, got, want)
	}
	if got, want := isLabelValue(s), validValue(s); got != want {
		t.Errorf("isLabelValue(%q) = %v, validation.IsValidLabelValue accepts it: %v", s, got, want)
	}
}

// FuzzLabelValidation checks that the hand-written label validation accepts
// exactly what Kubernetes' accepts.
func FuzzLabelValidation(f *testing.F) {
	for _, s := range labelStrings {
		f.Add(s)
	}
	f.Fuzz(checkLabelValidation)
}

func TestMatchLabelsOnly(t *testing.T) {
	pods := []map[string]string{
		nil,
		{},
		{"app": "website"},
		{"app": "website", "tier": ""},
		{"app": "db", "app.kubernetes.io/name": "web"},
		{"app.kubernetes.io/name": "web", "app": "website", "tier": "front"},
	}
	tests := []struct {
		name     string
		selector metav1.LabelSelector
		// fast says whether matchLabelsOnly decides it rather than
		// leaving it to LabelSelectorAsSelector.
		fast bool
	}{
		{name: "empty", selector: metav1.LabelSelector{}, fast: true},
		{name: "empty map", selector: metav1.LabelSelector{MatchLabels: map[string]string{}}, fast: true},
		{name: "one label", selector: matchLabels("app", "website"), fast: true},
		{name: "empty value", selector: matchLabels("tier", ""), fast: true},
		{name: "prefixed key", selector: matchLabels("app.kubernetes.io/name", "web"), fast: true},
		{name: "two labels", selector: matchLabels("app", "website", "app.kubernetes.io/name", "web"), fast: true},
		{name: "invalid key", selector: matchLabels("app", "website", "bad key", "x")},
		{name: "invalid value", selector: matchLabels("app", "bad value!")},
		{name: "invalid prefix", selector: matchLabels("Example.com/app", "website")},
		{name: "expressions", selector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpExists},
		}}},
		{name: "labels and expressions", selector: metav1.LabelSelector{
			MatchLabels:      map[string]string{"app": "website"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpDoesNotExist}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			selector, err := metav1.LabelSelectorAsSelector(&tc.selector)
			for _, pod := range pods {
				matches, ok := matchLabelsOnly(&tc.selector, pod)
				if ok != tc.fast {
					t.Fatalf("matchLabelsOnly(%v) decided = %v, want %v", pod, ok, tc.fast)
				}
				if !ok {
					continue
				}
				if err != nil {
					t.Fatalf("matchLabelsOnly decided a selector that LabelSelectorAsSelector rejects: %v", err)
				}
				if want := selector.Matches(labels.Set(pod)); matches != want {
					t.Errorf("matchLabelsOnly(%v) = %v, the parsed selector says %v", pod, matches, want)
				}
			}
		})
	}
}
