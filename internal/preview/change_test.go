package preview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"presetsim.dev/presetsim/internal/manifest"
)

// changePod is a pod of namespace shop labelled app=web, with an env var
// DB_HOST of its own.
const changePod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  containers: [{name: app, image: i, env: [{name: DB_HOST, value: own}]}]
`

// changePreset is a preset of namespace shop selecting app=web, with spec
// as given (flow YAML).
func changePreset(name, spec string) string {
	return fmt.Sprintf(`apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata: {name: %s, namespace: shop}
spec: {selector: {matchLabels: {app: web}}, %s}
`, name, spec)
}

func admitted(t *testing.T, docs ...string) []Result {
	t.Helper()
	objs, err := manifest.Decode(manifest.Source{File: "input.yaml", Line: 1}, strings.Join(docs, "---\n"), manifest.Scheme())
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(context.Background(), objs, Reference)
	if err != nil {
		t.Fatal(err)
	}
	return results
}

func TestCompare(t *testing.T) {
	other := `apiVersion: v1
kind: Pod
metadata: {name: other, namespace: shop}
spec:
  containers: [{name: app, image: i}]
`
	tests := []struct {
		name       string
		base, head []string
		// want is each changed pod as "side source: change item before→after,
		// …; +applied -applied; conflict …; resolved …".
		want     []string
		conflict bool
	}{
		{name: "nothing changes",
			base: []string{changePod, changePreset("a", `env: [{name: X, value: "1"}]`)},
			head: []string{changePod, changePreset("a", `env: [{name: X, value: "1"}]`)}},
		{name: "an item added, one changed, one removed",
			base: []string{changePod, changePreset("a", `env: [{name: X, value: "1"}, {name: "Y1", value: "1"}], volumes: [{name: v, emptyDir: {}}]`)},
			head: []string{changePod, changePreset("a", `env: [{name: X, value: "2"}, {name: Z, value: "1"}], volumes: [{name: v, emptyDir: {}}]`)},
			want: []string{`both Pod web: changed env X in container app 1→2, added env Z in container app →1, removed env Y1 in container app 1→`}},
		{name: "a new preset applies",
			base: []string{changePod},
			head: []string{changePod, changePreset("b", `volumes: [{name: cache, emptyDir: {}}]`)},
			want: []string{`both Pod web: added volume cache →{"emptyDir":...; +b`}},
		{name: "a change makes a conflict",
			base: []string{changePod, changePreset("a", `env: [{name: X, value: "1"}]`)},
			head: []string{changePod, changePreset("a", `env: [{name: X, value: "1"}, {name: DB_HOST, value: preset}]`)},
			want: []string{`both Pod web: removed env X in container app 1→; -a; conflict duplicate env DB_HOST in container app`}, conflict: true},
		{name: "a change resolves a conflict",
			base: []string{changePod, changePreset("a", `env: [{name: DB_HOST, value: preset}]`)},
			head: []string{changePod, changePreset("a", `env: [{name: DB_HOST, value: own}]`)},
			want: []string{`both Pod web: ; +a; resolved duplicate env DB_HOST in container app`}},
		{name: "a pod new in the head, another gone",
			base: []string{changePod, changePreset("a", `env: [{name: X, value: "1"}]`)},
			head: []string{other, changePreset("a", `env: [{name: X, value: "1"}]`)},
			want: []string{`head Pod other: `, `base Pod web: removed env X in container app 1→; -a`}},
		{name: "a new pod with a conflict made it",
			base: []string{changePreset("a", `env: [{name: DB_HOST, value: preset}]`)},
			head: []string{changePod, changePreset("a", `env: [{name: DB_HOST, value: preset}]`)},
			want: []string{`head Pod web: ; conflict duplicate env DB_HOST in container app`}, conflict: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(admitted(t, tt.base...), admitted(t, tt.head...))
			var got []string
			for _, p := range c.Changed {
				got = append(got, describe(p))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if c.MadeConflict() != tt.conflict {
				t.Errorf("MadeConflict() = %t, want %t", c.MadeConflict(), tt.conflict)
			}
		})
	}
}

// describe is a PodChange in the form TestCompare's cases write; a volume's
// content is cut at 12 characters.
func describe(p PodChange) string {
	var items []string
	for _, i := range p.Items {
		before, after := i.Before, i.After
		if i.Field == "volumes" {
			before, after = cut(before), cut(after)
		}
		items = append(items, fmt.Sprintf("%s %s %s→%s", i.Change, i, before, after))
	}
	s := fmt.Sprintf("%s %s: %s", p.Side, p.Source, strings.Join(items, ", "))
	var rest []string
	for _, a := range p.AppliedNow {
		rest = append(rest, "+"+a)
	}
	for _, a := range p.AppliedNoLonger {
		rest = append(rest, "-"+a)
	}
	if len(rest) > 0 {
		s += "; " + strings.Join(rest, " ")
	}
	for _, c := range p.NewConflicts {
		s += "; conflict " + c.String()
	}
	for _, c := range p.ResolvedConflicts {
		s += "; resolved " + c.String()
	}
	return s
}

func cut(s string) string {
	if len(s) > 12 {
		return s[:12] + "..."
	}
	return s
}

// TestChangesRendered: the Markdown escapes what would break a table or a
// code span, and the JSON says whether the change made a conflict.
func TestChangesRendered(t *testing.T) {
	c := Compare(admitted(t, changePod), admitted(t, changePod, changePreset("a", "env: [{name: X, value: \"a|`b`\"}]")))
	c.Base, c.Head = "base", "head"
	var md bytes.Buffer
	if err := WriteChangesMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	if row := "| added | env X in container app |  | `` a\\|`b` `` |"; !strings.Contains(md.String(), row) {
		t.Errorf("no row %s in:\n%s", row, md.String())
	}
	var js bytes.Buffer
	if err := WriteChangesJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Summary      string `json:"summary"`
		MadeConflict *bool  `json:"madeConflict"`
		Pods         int    `json:"pods"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary != "1 of 1 pod is admitted differently" || got.MadeConflict == nil || *got.MadeConflict || got.Pods != 1 {
		t.Errorf("JSON: %+v\n%s", got, js.String())
	}
}
