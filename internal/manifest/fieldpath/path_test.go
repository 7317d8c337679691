package fieldpath

import (
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

func TestPaths(t *testing.T) {
	tree := map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{"a.b/c": "x"}},
		"spec":     map[string]any{"volumes": []any{map[string]any{}, map[string]any{"secret": map[string]any{"secretName": "s"}}}},
	}
	tests := []struct {
		name, raw, want string
		value           any
	}{
		{name: "list index", raw: "spec.volumes[1].secret.secretName", want: "spec.volumes[1].secret.secretName", value: "s"},
		{name: "key with dots joined and bracketed", raw: "metadata.annotations.a.b/c", want: "metadata.annotations[a.b/c]", value: "x"},
		{name: "path that leaves the tree", raw: "spec.nope.deeper", want: "spec.nope.deeper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Resolve(tree, SplitRaw(tt.raw))
			if got := p.String(); got != tt.want {
				t.Errorf("String = %q, want %q", got, tt.want)
			}
			v, ok := ValueAt(tree, p)
			if ok != (tt.value != nil) || (ok && v != tt.value) {
				t.Errorf("ValueAt = %v, %v; want %v", v, ok, tt.value)
			}
		})
	}
	p := Path{}.Key("spec").Key("volumes").Index(1)
	changed := WithValue(tree, p, nil)
	if v, _ := ValueAt(changed, p); v != nil {
		t.Errorf("WithValue did not set the value: %v", v)
	}
	if v, _ := ValueAt(tree, p); v == nil {
		t.Errorf("WithValue changed the original tree")
	}
}

func TestLookupNode(t *testing.T) {
	var doc yaml.Node
	text := "base: &b\n  name: x\nitem:\n  <<: *b\n  on: 1\n"
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		path     Path
		wantLine int
	}{
		{name: "key merged in by <<", path: Path{}.Key("item").Key("name"), wantLine: 2},
		{name: "YAML 1.1 boolean key", path: Path{}.Key("item").Key("true"), wantLine: 5},
		{name: "missing key: the deepest that exists", path: Path{}.Key("item").Key("nope"), wantLine: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, val := LookupNode(doc.Content[0], tt.path)
			if val == nil || val.Line != tt.wantLine {
				t.Fatalf("LookupNode = %v, want a node at line %d", val, tt.wantLine)
			}
		})
	}
}
