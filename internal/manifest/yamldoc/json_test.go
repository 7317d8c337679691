package yamldoc

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// TestPlainTreeIsKubectls: what plainTree makes is the object
// sigs.k8s.io/yaml makes of the same text (kubectl's reading), for every
// scalar it claims to tell; the others it leaves to that library.
func TestPlainTreeIsKubectls(t *testing.T) {
	scalars := []string{
		`a`, `"a"`, `'yes'`, `yes`, `no`, `on`, `Off`, `y`, `n`, `true`, `True`, `false`, `null`, `Null`, `~`, ``,
		`0`, `-0`, `7`, `-7`, `+7`, `007`, `0o17`, `0x1F`, `0b101`, `-0b101`, `1_000`, `123456789012345678`, `1234567890123456789`, `99999999999999999999`,
		`1.5`, `.5`, `-.5`, `1e3`, `1E3`, `.inf`, `-.Inf`, `.nan`, `2001-12-14`, `2001-12-14t21:59:43.10-05:00`, `2001-12-14 21:59:43.10 -5`,
		`--port=8080`, `-v`, `-`, `--`, `10m`, `1Gi`, `500m`, `0.5Gi`, `1.2.3`, `v1.2.3`, `:8080`, `127.0.0.1`, `1:20`, `0:0`, `12:30:00`, `a b c`,
		`"<&>"`, `"tab\there"`, `"\u00e9"`, `|` + "\n  line\n  two\n", `>` + "\n  folded\n  text\n", `'it''s'`, `<<`, `Yellow`, `token`, `/etc/config`, `http://x:80/y`,
	}
	var docs []string
	for _, s := range scalars {
		docs = append(docs, "k: "+s+"\n", "- "+s+"\n")
		if s != "" && !strings.HasPrefix(s, "|") && !strings.HasPrefix(s, ">") {
			docs = append(docs, s+": v\n")
		}
	}
	docs = append(docs,
		"a: &x 1\nb: *x\n", "a: !!str 1\n", "<<: {a: 1}\nb: 2\n", "a: 1\na: 2\n", "{a: [1, {b: c}], d: []}\n", "- - - x\n", "a:\n  b:\n    c: null\n")
	// The repository's own manifests and DocStrings' documents.
	root := filepath.Join("..", "..", "..")
	_ = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() && (e.Name() == ".git" || e.Name() == ".cache") {
			return fs.SkipDir
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		chunks, _ := Split(path, 1, string(data))
		for _, c := range chunks {
			docs = append(docs, c.Text)
		}
		return nil
	})
	told := 0
	for _, doc := range docs {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &n); err != nil || len(n.Content) == 0 {
			continue
		}
		got, ok := plainTree(n.Content[0])
		if !ok {
			continue
		}
		told++
		want, err := sigsyaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Errorf("plainTree made %v of a document kubectl refuses (%v):\n%s", got, err, doc)
			continue
		}
		var kubectl any
		dec := json.NewDecoder(bytes.NewReader(want))
		dec.UseNumber()
		if err := dec.Decode(&kubectl); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, kubectl) {
			t.Errorf("plainTree: %#v, kubectl: %s, of:\n%s", got, want, doc)
		}
	}
	if told < len(docs)/2 {
		t.Errorf("plainTree told %d of %d documents: most manifests should not need the slow path", told, len(docs))
	}
	t.Logf("plainTree told %d of %d documents", told, len(docs))
}
