package suitecheck

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	messages "github.com/cucumber/messages/go/v21"

	"presetsim.dev/presetsim/internal/manifest"
)

// substitution is any ${…} a feature file writes; ${rv:PRESET} (the
// resourceVersion of a PodPreset the scenario created) is the only one
// the steps expand.
var (
	substitution = regexp.MustCompile(`\$\{([^}]*)\}`)
	rvName       = regexp.MustCompile(`^rv:([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$`)
)

// podReferences are the steps that name a pod the scenario itself must
// have created (or tried to): the capture group is the pod's name.
var podReferences = []*regexp.Regexp{
	regexp.MustCompile(`^the pod "([^"]*)" should be:$`),
	regexp.MustCompile(`^the pod "([^"]*)" should have the annotations:$`),
	regexp.MustCompile(`^the pod "([^"]*)" should have no PodPreset annotations$`),
	regexp.MustCompile(`^the Pod "([^"]*)" should be as submitted$`),
	regexp.MustCompile(`^the container "[^"]*" of pod "([^"]*)" should`),
	regexp.MustCompile(`^the pod "([^"]*)" should become ready$`),
}

// created is what a scenario's steps create, up to a step: objects by kind
// and name, whatever the namespace.
type created map[string][]string

func (c created) add(kind, name string) {
	if !slices.Contains(c[kind], name) {
		c[kind] = append(c[kind], name)
	}
}

// pod reports whether a pod of that name is the scenario's own: created
// by a step, or the ordinal pod of a StatefulSet it created (web-0).
func (c created) pod(name string) bool {
	if slices.Contains(c["Pod"], name) {
		return true
	}
	for _, sts := range c["StatefulSet"] {
		if rest, ok := strings.CutPrefix(name, sts+"-"); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}

// references finds, in one scenario's steps, the substitutions no step
// expands and the names of presets or pods it never creates: mistakes of
// the feature file, found before anything starts.
func references(path string, p *messages.Pickle, lines, docLines map[string]int, manifests []*regexp.Regexp, decode decodeFunc) []error {
	var errs []error
	c := created{}
	for _, st := range p.Steps {
		at, docAt := 0, 0
		if len(st.AstNodeIds) > 0 {
			at, docAt = lines[st.AstNodeIds[0]], docLines[st.AstNodeIds[0]]
		}
		var doc string
		if st.Argument != nil && st.Argument.DocString != nil {
			doc = st.Argument.DocString.Content
			if slices.ContainsFunc(manifests, func(re *regexp.Regexp) bool { return re.MatchString(st.Text) }) {
				objs, _ := decode(docAt, doc)
				for _, o := range objs {
					c.add(o.GVK.Kind, o.Raw.GetName())
				}
			}
		}
		texts := []string{st.Text, doc}
		if st.Argument != nil && st.Argument.DataTable != nil {
			for _, row := range st.Argument.DataTable.Rows {
				for _, cell := range row.Cells {
					texts = append(texts, cell.Value)
				}
			}
		}
		for _, text := range texts {
			for _, m := range substitution.FindAllStringSubmatch(text, -1) {
				name := rvName.FindStringSubmatch(m[1])
				switch {
				case name == nil:
					errs = append(errs, fmt.Errorf("%s:%d: %s is no substitution the steps know: ${rv:PRESET} (the resourceVersion of a PodPreset the scenario created) is the only one", path, at, m[0]))
				case !slices.Contains(c["PodPreset"], name[1]):
					errs = append(errs, fmt.Errorf("%s:%d: %s names a PodPreset this scenario has not created by then%s", path, at, m[0], didYouMean(name[1], c["PodPreset"])))
				}
			}
		}
		for _, re := range podReferences {
			if m := re.FindStringSubmatch(st.Text); m != nil && !c.pod(m[1]) {
				errs = append(errs, fmt.Errorf("%s:%d: the pod %q is not one this scenario has created (or tried to) by then%s", path, at, m[1], didYouMean(m[1], c["Pod"])))
			}
		}
	}
	return errs
}

// decodeFunc decodes the DocString at a line of a feature file.
type decodeFunc func(line int, content string) ([]manifest.Object, error)

// decoder decodes each DocString of a feature file once, however many
// checks and pickles (an outline's rows share a line) read it.
func decoder(path string) decodeFunc {
	type key struct {
		line    int
		content string
	}
	type decoded struct {
		objs []manifest.Object
		err  error
	}
	seen := map[key]decoded{}
	return func(line int, content string) ([]manifest.Object, error) {
		k := key{line, content}
		d, ok := seen[k]
		if !ok {
			d.objs, d.err = manifest.Decode(manifest.Source{File: path, Line: line}, content, scheme())
			seen[k] = d
		}
		return d.objs, d.err
	}
}

// didYouMean suggests the nearest of names, or lists what there is.
func didYouMean(name string, names []string) string {
	if len(names) == 0 {
		return ": it creates none"
	}
	sorted := slices.Clone(names)
	sort.Slice(sorted, func(i, j int) bool { return distance(name, sorted[i]) < distance(name, sorted[j]) })
	if distance(name, sorted[0]) <= max(2, len(name)/3) {
		return fmt.Sprintf(": did you mean %q?", sorted[0])
	}
	return fmt.Sprintf(" (it creates %s)", strings.Join(names, ", "))
}
