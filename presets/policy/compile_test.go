package policy

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func readPresets(t *testing.T, file string) []*v1alpha1.PodPreset {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []*v1alpha1.PodPreset
	for _, doc := range strings.Split(string(data), "\n---\n") {
		p := &v1alpha1.PodPreset{}
		if err := yaml.UnmarshalStrict([]byte(doc), p); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, p)
	}
	return out
}

// TestCompileGolden: the policy and binding of testdata/valid-*.yaml, as
// `presetsim policy` prints them. The suite checks what they do on a real
// API server (run --implementation policy); this shows what they are.
func TestCompileGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid-*.yaml")
	if len(files) == 0 {
		t.Fatal("no testdata/valid-*.yaml")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			presets := readPresets(t, file)
			objs, err := Compile(presets[0].Namespace, presets, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			for _, o := range objs.All() {
				out, err := yaml.Marshal(o)
				if err != nil {
					t.Fatal(err)
				}
				got.WriteString("---\n")
				got.Write(out)
			}
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("Compile(%s) differs from %s (go test -update rewrites it):\n%s", file, golden, got.String())
			}
		})
	}
}

func TestCompile(t *testing.T) {
	presets := readPresets(t, "testdata/valid-presets.yaml")
	objs, err := Compile("shop", presets, Options{})
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, v := range objs.Policy.Spec.Variables {
		vars[v.Name] = v.Expression
	}
	tests := []struct {
		name, variable, want string
	}{
		// cache (p0), db (p1), proxy (p2): name order, not input order.
		{"name order", "p1", `("role" in variables.labels && variables.labels["role"] == "frontend")`},
		{"empty selector selects every pod", "p0", "true"},
		{"db and cache clash on /cache: a static conflict", "static", "(variables.p0 && variables.p1)"},
		{"pod items are looked up by key", "conflict_volumeMounts_containers", "a.mountPath in variables.volumeMountsByMountPath"},
		{"proxy's DB_PORT only when db does not match", "env", `(variables.p2 && !variables.p1 ? [dyn({"name": "DB_PORT", "value": "6379"})] : [])`},
		{"db's fieldRef is defaulted as a pod's", "env", `"apiVersion": "v1"`},
		{"cache's configMap volume is defaulted as a pod's", "volumes", `"defaultMode": dyn(420)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(vars[tc.variable], tc.want) {
				t.Errorf("variable %s = %s\nwant it to contain %s", tc.variable, vars[tc.variable], tc.want)
			}
		})
	}
	if got := objs.Policy.Annotations[PresetsAnnotation]; got != "cache=11,db=10,proxy=12" {
		t.Errorf("%s = %q", PresetsAnnotation, got)
	}
	if rv, ok := CompiledVersion(objs.Policy.Annotations[PresetsAnnotation], "db"); !ok || rv != "10" {
		t.Errorf(`CompiledVersion(…, "db") = %q, %v; want "10", true`, rv, ok)
	}
}

func TestCompileErrors(t *testing.T) {
	presets := readPresets(t, "testdata/valid-presets.yaml")
	if _, err := Compile("other", presets, Options{}); err == nil || !strings.Contains(err.Error(), "not in namespace other") {
		t.Errorf("presets of another namespace: err = %v", err)
	}
	bad := presets[0].DeepCopy()
	bad.Spec.Selector.MatchExpressions[0].Operator = "Like"
	if _, err := Compile("shop", append(presets[1:], bad), Options{}); err == nil || !strings.Contains(err.Error(), "shop/proxy has an invalid selector") {
		t.Errorf("an invalid operator: err = %v", err)
	}
	if objs, err := Compile("shop", nil, Options{}); err != nil || objs.Policy != nil {
		t.Errorf("no presets: %v, %v; want no objects", objs, err)
	}
}
