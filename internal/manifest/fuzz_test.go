package manifest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// nasty inputs that have crashed or hung YAML and JSON decoders before.
var nasty = []string{
	"",
	"\x00",
	"\xff\xfe",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: \xff\n",
	strings.Repeat("[", 20000),
	strings.Repeat("- ", 5000) + "a",
	strings.Repeat("a:\n ", 1000) + "b",
	// Billion laughs.
	"a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n" +
		"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n" +
		"f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n" +
		"apiVersion: v1\nkind: Pod\n",
	"a: &a\n  b: *a\napiVersion: v1\nkind: Pod\n",
	"apiVersion: v1\nkind: Pod\nmetadata: &m\n  <<: *m\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  <<: [*x]\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    ? [a, b]\n    : c\n",
	"apiVersion: v1\nkind: Pod\nmetadata: {[a]: b}\n",
	"apiVersion: v1\nkind: Pod\nspec: !!binary aGVsbG8=\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  name: !!int 5\n",
	"apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: a, ports: [{containerPort: 1e999}]}]\n",
	"apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: a, ports: [{containerPort: 99999999999999999999}]}]\n",
	"apiVersion: v1\nkind: Pod\nspec:\n  activeDeadlineSeconds: .inf\n",
	"apiVersion: v1\nkind: Pod\nspec:\n  containers: [[[[]]]]\n",
	"apiVersion: v1\nkind: Pod\nspec:\n  containers: [~, ~]\n",
	"apiVersion: v1\nkind: Pod\n1: 2\ntrue: false\n~: x\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: yesterday\n",
	"apiVersion: v1\nkind: Pod\nmetadata:\n  labels: [a]\n  annotations: 3\n",
	"apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    bogus: 1\n",
	"apiVersion: settings.k8s.io/v1alpha1\nkind: PodPreset\nspec: null\n",
	"apiVersion: settings.k8s.io/v1alpha1\nkind: PodPresetList\nitems: [1, 2]\n",
	"apiVersion: v1\nkind: Status\ndetails: {causes: [{field: 1}]}\n",
	"apiVersion: meta.k8s.io/v1\nkind: WatchEvent\n",
	"apiVersion: [v1]\nkind: {Pod: 1}\n",
	"apiVersion: /\nkind: \"\"\n",
	"%YAML 1.2\n---\napiVersion: v1\nkind: Pod\n",
	"--- |\n  text\n",
	"--- !!map\napiVersion: v1\n",
	"...\n...\n---\n---\n",
	"apiVersion: v1\nkind: Pod\n...\nkind: Service\n",
	"\t\t\t",
	"'",
	"\"\\",
	"? ? ? ?",
	"{{{{}}}}",
	"&a *a",
	"!<tag:yaml.org,2002:map> {}",
}

// fragments are inserted at random places by mutate.
var fragments = []string{
	"- ", ": ", "{", "}", "[", "]", ",", "&a ", "*a", "<<: *a\n", "!!binary ", "!!str ", "|\n", ">-\n",
	"'", "\"", "\t", "---\n", "...\n", "~", "null", "0x1F", "1e999", "-.inf", "? ", "%YAML 1.2\n",
	"\x00", "\xff", "# ", "\n", "  ", "apiVersion: v1\n", "kind: Pod\n", "kind: PodPreset\n",
	"value: 6379\n", "secretName: x\n", "name: ", "spec:\n", "  containers:\n", "yes", "on",
}

// mutate damages s in a few random ways.
func mutate(r *rand.Rand, s string) string {
	for n := 1 + r.IntN(4); n > 0; n-- {
		lines := strings.SplitAfter(s, "\n")
		switch op := r.IntN(8); {
		case len(s) == 0:
			s = fragments[r.IntN(len(fragments))]
		case op == 0: // delete a line
			i := r.IntN(len(lines))
			s = strings.Join(append(lines[:i:i], lines[i+1:]...), "")
		case op == 1: // duplicate a line
			i := r.IntN(len(lines))
			s = strings.Join(append(append(lines[:i+1:i+1], lines[i]), lines[i+1:]...), "")
		case op == 2: // swap two lines
			i, j := r.IntN(len(lines)), r.IntN(len(lines))
			lines[i], lines[j] = lines[j], lines[i]
			s = strings.Join(lines, "")
		case op == 3: // indent or outdent a line
			i := r.IntN(len(lines))
			if r.IntN(2) == 0 {
				lines[i] = strings.Repeat(" ", 1+r.IntN(4)) + lines[i]
			} else {
				lines[i] = strings.TrimPrefix(lines[i], "  ")
			}
			s = strings.Join(lines, "")
		case op == 4: // truncate
			s = s[:r.IntN(len(s))]
		case op == 5: // flip a byte
			b := []byte(s)
			b[r.IntN(len(b))] = byte(r.IntN(256))
			s = string(b)
		default: // insert a fragment
			i := r.IntN(len(s) + 1)
			s = s[:i] + fragments[r.IntN(len(fragments))] + s[i:]
		}
	}
	return s
}

// checkContract decodes input every way and checks that nothing panics (a
// recovered panic shows as an "internal error") and that every error is an
// *Error that names the file and a line of the input.
func checkContract(t *testing.T, scheme *runtime.Scheme, input string) {
	t.Helper()
	// YAML breaks lines at \n, \r\n and a lone \r, and counts lines so.
	maxLine := src.Line + strings.Count(strings.ReplaceAll(input, "\r\n", "\n"), "\n") +
		strings.Count(strings.ReplaceAll(input, "\r\n", "\n"), "\r")
	check := func(how string, err error) {
		t.Helper()
		if err == nil {
			return
		}
		for _, e := range flatten(t, err) {
			if strings.Contains(e.Msg, "internal error") || e.File != src.File || e.Line < src.Line || e.Line > maxLine || e.Msg == "" {
				t.Fatalf("%s: bad error %#v for input %q", how, e, input)
			}
		}
	}
	objs, err := Decode(src, input, scheme)
	check("Decode", err)
	if err != nil && objs != nil {
		t.Fatalf("Decode returned objects and an error for %q", input)
	}
	for _, o := range objs {
		if o.Object == nil || o.GVK.Kind == "" || o.Line < src.Line || o.Line > maxLine {
			t.Fatalf("Decode returned a bad object %+v for %q", o, input)
		}
	}
	check("DecodeInto(Pod)", DecodeInto(src, input, scheme, &corev1.Pod{}))
	check("DecodeInto(PodPreset)", DecodeInto(src, input, scheme, &v1alpha1.PodPreset{}))
	check("DecodeInto(Unstructured)", DecodeInto(src, input, scheme, &unstructured.Unstructured{}))
}

// seedInputs are the test data files and the nasty inputs.
func seedInputs(tb testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no test data: %v", err)
	}
	inputs := append([]string(nil), nasty...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	return inputs
}

// TestDecodeGarbage feeds the nasty inputs and thousands of damaged versions
// of the test data to every entry point.
func TestDecodeGarbage(t *testing.T) {
	scheme := Scheme()
	seeds := seedInputs(t)
	for _, s := range seeds {
		checkContract(t, scheme, s)
	}
	n := 3000
	if testing.Short() {
		n = 300
	}
	// Damage the small inputs only: the big ones take long to parse.
	var small []string
	for _, s := range seeds {
		if len(s) < 2000 {
			small = append(small, s)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		checkContract(t, scheme, mutate(r, small[r.IntN(len(small))]))
	}
}

// FuzzDecode: go test -fuzz=FuzzDecode ./internal/manifest/
func FuzzDecode(f *testing.F) {
	for _, s := range seedInputs(f) {
		f.Add(s)
	}
	scheme := Scheme()
	f.Fuzz(func(t *testing.T, input string) {
		checkContract(t, scheme, input)
	})
}
