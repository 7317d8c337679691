package valuediff

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fromJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("unable to parse the test value: %v", err)
	}
	return v
}

func TestValues(t *testing.T) {
	tests := []struct {
		name      string
		path      string
		want, got any // strings are parsed as JSON
		diffs     []string
	}{
		{
			name: "equal nested maps",
			path: "spec",
			want: `{"replicas":2,"template":{"metadata":{"labels":{"app":"web"}}}}`,
			got:  `{"template":{"metadata":{"labels":{"app":"web"}}},"replicas":2}`,
		},
		{
			name:  "nested value differs",
			path:  "spec",
			want:  `{"template":{"metadata":{"labels":{"app":"web"}}}}`,
			got:   `{"template":{"metadata":{"labels":{"app":"shop"}}}}`,
			diffs: []string{`spec.template.metadata.labels.app: want "web", got "shop"`},
		},
		{
			name:  "keys that are not identifiers go in brackets",
			path:  "spec",
			want:  `{"nodeSelector":{"kubernetes.io/os":"linux"}}`,
			got:   `{"nodeSelector":{"kubernetes.io/os":"windows"}}`,
			diffs: []string{`spec.nodeSelector[kubernetes.io/os]: want "linux", got "windows"`},
		},
		{
			name: "keys on one side only, in sorted order",
			path: "spec",
			want: `{"b":{"x":[1,2]},"c":true}`,
			got:  `{"a":"new","c":true}`,
			diffs: []string{
				`spec.a: want <absent>, got "new"`,
				`spec.b: want {"x":[1,2]}, got <absent>`,
			},
		},
		{
			name: "numbers compare by value",
			path: "spec",
			want: map[string]any{"replicas": int64(3), "ratio": 0.5},
			got:  `{"replicas":3,"ratio":0.5}`,
		},
		{
			name: "scalars of different types",
			path: "spec",
			want: `{"replicas":3,"paused":false,"x":null}`,
			got:  `{"replicas":"3","paused":"false","x":{}}`,
			diffs: []string{
				`spec.paused: want false, got "false"`,
				`spec.replicas: want 3, got "3"`,
				`spec.x: want null, got {}`,
			},
		},
		{
			name: "unkeyed lists by index",
			path: "spec",
			want: `{"args":["a","b"]}`,
			got:  `{"args":["a","c","d"]}`,
			diffs: []string{
				`spec.args[1]: want "b", got "c"`,
				`spec.args[2]: want <absent>, got "d"`,
			},
		},
		{
			name: "containers of a pod template keyed by name",
			path: "spec",
			want: `{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"A","value":"1"}]}]}}}`,
			got:  `{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"A","value":"2"}]}]}}}`,
			diffs: []string{
				`spec.template.spec.containers[web].env[A].value: want "1", got "2"`,
			},
		},
		{
			name: "a list at the root is keyed by the path's last field",
			path: "spec.containers",
			want: `[{"name":"a","image":"x"},{"name":"b","image":"y"}]`,
			got:  `[{"name":"b","image":"y"},{"name":"a","image":"x"}]`,
			diffs: []string{
				`spec.containers: order: want [a b], got [b a]`,
			},
		},
		{
			name: "items without a key fall back to index",
			path: "spec",
			want: `{"env":[{"name":"A"},{"value":"x"}]}`,
			got:  `{"env":[{"name":"A"},{"value":"y"}]}`,
			diffs: []string{
				`spec.env[1].value: want "x", got "y"`,
			},
		},
		{
			name: "service ports have no containerPort and go by index",
			path: "spec",
			want: `{"ports":[{"port":80}]}`,
			got:  `{"ports":[{"port":8080}]}`,
			diffs: []string{
				`spec.ports[0].port: want 80, got 8080`,
			},
		},
		{
			name:  "empty path",
			path:  "",
			want:  `{"a":{"b":1}}`,
			got:   `{"a":{"b":2}}`,
			diffs: []string{`a.b: want 1, got 2`},
		},
		{
			name:  "typed values are read through JSON",
			path:  "metadata.labels",
			want:  map[string]string{"app": "web"},
			got:   map[string]any{"app": "web", "tier": "front"},
			diffs: []string{`metadata.labels.tier: want <absent>, got "front"`},
		},
		{
			name:  "strings rendered like %q, without HTML escaping in JSON",
			path:  "x",
			want:  map[string]any{"s": "a\"b", "m": map[string]any{"k": "<&>"}},
			got:   map[string]any{"s": "a\tb"},
			diffs: []string{`x.m: want {"k":"<&>"}, got <absent>`, `x.s: want "a\"b", got "a\tb"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got := tt.want, tt.got
			if s, ok := want.(string); ok {
				want = fromJSON(t, s)
			}
			if s, ok := got.(string); ok {
				got = fromJSON(t, s)
			}
			var gotDiffs []string
			for _, d := range Values(tt.path, want, got) {
				gotDiffs = append(gotDiffs, d.String())
			}
			if diff := cmp.Diff(tt.diffs, gotDiffs); diff != "" {
				t.Errorf("Values() differences (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDifferenceString(t *testing.T) {
	d := Difference{Path: "spec.containers[website].env[DB_PORT].value", Want: `"6379"`, Got: `"6380"`}
	want := `spec.containers[website].env[DB_PORT].value: want "6379", got "6380"`
	if got := d.String(); got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}
