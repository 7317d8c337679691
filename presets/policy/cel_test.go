package policy

import (
	"testing"

	"github.com/google/cel-go/cel"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLiteral(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "string with quotes and a newline", in: "a \"b\"\n", want: `"a \"b\"\n"`},
		{name: "integral number is an int", in: 420, want: "420"},
		{name: "fraction is a double", in: 0.5, want: "0.5"},
		{name: "null", in: nil, want: "null"},
		{name: "map keys sorted, same-typed values bare", in: map[string]any{"b": "2", "a": "1"}, want: `{"a": "1", "b": "2"}`},
		{name: "mixed values wrapped in dyn", in: map[string]any{"name": "cfg", "configMap": map[string]any{"name": "cfg"}},
			want: `{"configMap": dyn({"name": "cfg"}), "name": dyn("cfg")}`},
		{name: "maps of different shapes in a list wrapped", in: []any{map[string]any{"a": "1"}, map[string]any{"a": 1}},
			want: `[dyn({"a": "1"}), dyn({"a": 1})]`},
		{name: "empty map and string differ", in: map[string]any{"emptyDir": map[string]any{}, "name": "x"},
			want: `{"emptyDir": dyn({}), "name": dyn("x")}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := literal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("literal(%v) = %s, want %s", tc.in, got, tc.want)
			}
			// Every literal must also pass CEL's checker.
			env, err := cel.NewEnv()
			if err != nil {
				t.Fatal(err)
			}
			if _, iss := env.Compile(got); iss.Err() != nil {
				t.Errorf("CEL does not accept %s: %v", got, iss.Err())
			}
		})
	}
}

// TestSelector: the CEL of a selector selects exactly the label sets that
// metav1.LabelSelectorAsSelector does (R2.3).
func TestSelector(t *testing.T) {
	selectors := map[string]metav1.LabelSelector{
		"empty":      {},
		"labels":     {MatchLabels: map[string]string{"role": "frontend", "tier": "web"}},
		"in":         {MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "role", Operator: metav1.LabelSelectorOpIn, Values: []string{"frontend", "api"}}}},
		"not in":     {MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "role", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"backend"}}}},
		"exists":     {MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}},
		"not exists": {MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpDoesNotExist}}},
		"labels and expressions": {MatchLabels: map[string]string{"role": "frontend"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}}}},
		"key with a slash": {MatchLabels: map[string]string{"example.com/role": "x"}},
	}
	labelSets := map[string]map[string]string{
		"none":              {},
		"frontend":          {"role": "frontend"},
		"frontend web":      {"role": "frontend", "tier": "web"},
		"frontend db":       {"role": "frontend", "tier": "db"},
		"backend":           {"role": "backend"},
		"api":               {"role": "api", "tier": "web"},
		"slash":             {"example.com/role": "x"},
		"value differs":     {"example.com/role": "y"},
		"case differs":      {"role": "Frontend"},
		"tier only":         {"tier": "web"},
		"extra labels only": {"app": "website"},
	}
	env, err := cel.NewEnv(cel.Variable("labels", cel.MapType(cel.StringType, cel.StringType)))
	if err != nil {
		t.Fatal(err)
	}
	for sname, s := range selectors {
		t.Run(sname, func(t *testing.T) {
			expr, err := selector(s, "labels")
			if err != nil {
				t.Fatal(err)
			}
			ast, iss := env.Compile(expr)
			if iss.Err() != nil {
				t.Fatalf("%s: %v", expr, iss.Err())
			}
			prg, err := env.Program(ast)
			if err != nil {
				t.Fatal(err)
			}
			want, err := metav1.LabelSelectorAsSelector(&s)
			if err != nil {
				t.Fatal(err)
			}
			for lname, l := range labelSets {
				out, _, err := prg.Eval(map[string]any{"labels": l})
				if err != nil {
					t.Fatalf("%s on %s: %v", expr, lname, err)
				}
				if got, want := out.Value() == true, want.Matches(labelsOf(l)); got != want {
					t.Errorf("%s on labels %s (%v): %v, want %v", expr, lname, l, got, want)
				}
			}
		})
	}
}

func TestSelectorUnknownOperator(t *testing.T) {
	_, err := selector(metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Like"}}}, "labels")
	if err == nil {
		t.Fatal("an unknown operator was accepted")
	}
}

type labelsOf map[string]string

func (l labelsOf) Has(k string) bool              { _, ok := l[k]; return ok }
func (l labelsOf) Get(k string) string            { return l[k] }
func (l labelsOf) Lookup(k string) (string, bool) { v, ok := l[k]; return v, ok }
