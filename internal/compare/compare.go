package compare

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/compare/valuediff"
)

// Options tunes how pods are compared.
type Options struct {
	// AnnotationPrefix is the prefix of the annotations the implementation
	// under test writes, e.g. "podpreset.admission.kubernetes.io/". An
	// annotation on the actual pod under this prefix that the expected pod
	// does not have is a difference; other extra annotations are ignored.
	// When empty, extra annotations are never a difference.
	AnnotationPrefix string
}

// Mismatch explains why two pods are not equal.
type Mismatch struct {
	// Differences lists every difference, in walk order: labels, then
	// annotations, then spec.
	Differences []valuediff.Difference
	// Unified is a unified diff ("--- want", "+++ got", 3 lines of context)
	// of the compared parts of both pods rendered as YAML.
	Unified string
}

// Error lists every difference, one per line, then a blank line and the
// unified diff.
func (m *Mismatch) Error() string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for i, d := range m.Differences {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	if u := strings.TrimRight(m.Unified, "\n"); u != "" {
		b.WriteString("\n\n")
		b.WriteString(u)
	}
	return b.String()
}

// Pods compares an expected pod with an actual one; nil means equal.
//
// Compared are metadata.labels (exactly; nil equals empty),
// metadata.annotations (every expected one present and equal, and no
// unexpected one under opts.AnnotationPrefix) and spec. Both specs are
// normalized first (see [Normalize]), and the actual spec.nodeName is
// ignored when the expected pod has none. After that, spec must match
// exactly, list order included.
//
// The result is a *Mismatch, not an error, so that callers can read the
// differences; convert it with care, as a nil *Mismatch stored in an error
// variable is not a nil error.
func Pods(want, got *corev1.Pod, opts Options) *Mismatch {
	if want == nil && got == nil {
		return nil
	}
	wv, gv := views(want, got, opts)
	var diffs []valuediff.Difference
	switch {
	case want == nil:
		diffs = []valuediff.Difference{{Path: "pod", Want: valuediff.Absent, Got: valuediff.Render(gv)}}
	case got == nil:
		diffs = []valuediff.Difference{{Path: "pod", Want: valuediff.Render(wv), Got: valuediff.Absent}}
	default:
		diffs = append(diffs, stringMap("metadata.labels", wv.Metadata.Labels, gv.Metadata.Labels)...)
		diffs = append(diffs, stringMap("metadata.annotations", wv.Metadata.Annotations, gv.Metadata.Annotations)...)
		// Identical Go values serialise identically: the (costly) walk of
		// the serialised specs is only needed when they are not.
		if !reflect.DeepEqual(wv.Spec, gv.Spec) {
			diffs = append(diffs, valuediff.Values("spec", unstructured(&wv.Spec), unstructured(&gv.Spec))...)
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return &Mismatch{Differences: diffs, Unified: unified(wv, gv)}
}

// podView is the part of a pod that Pods compares, as it is compared.
type podView struct {
	Metadata viewMeta       `json:"metadata"`
	Spec     corev1.PodSpec `json:"spec"`
}

type viewMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// views returns the compared parts of both pods: normalized specs, got's
// nodeName dropped when want has none, and got's annotations reduced to the
// ones that are compared (expected keys and keys under the preset prefix). A
// nil pod gives an empty view.
func views(want, got *corev1.Pod, opts Options) (podView, podView) {
	var wv, gv podView
	if want != nil {
		w := Normalize(want)
		wv = podView{Metadata: viewMeta{Labels: w.Labels, Annotations: w.Annotations}, Spec: w.Spec}
	}
	if got != nil {
		g := Normalize(got)
		gv = podView{Metadata: viewMeta{Labels: g.Labels}, Spec: g.Spec}
		if wv.Spec.NodeName == "" {
			gv.Spec.NodeName = ""
		}
		for k, v := range g.Annotations {
			_, expected := wv.Metadata.Annotations[k]
			if expected || (opts.AnnotationPrefix != "" && strings.HasPrefix(k, opts.AnnotationPrefix)) {
				if gv.Metadata.Annotations == nil {
					gv.Metadata.Annotations = map[string]string{}
				}
				gv.Metadata.Annotations[k] = v
			}
		}
	}
	for _, v := range []*podView{&wv, &gv} {
		if len(v.Metadata.Labels) == 0 {
			v.Metadata.Labels = nil
		}
		if len(v.Metadata.Annotations) == 0 {
			v.Metadata.Annotations = nil
		}
	}
	return wv, gv
}

// stringMap compares two string maps exactly (nil equals empty), naming
// entries in brackets like field paths do: metadata.labels[app].
func stringMap(path string, want, got map[string]string) []valuediff.Difference {
	var diffs []valuediff.Difference
	keys := slices.Sorted(maps.Keys(want))
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		w, inWant := want[k]
		g, inGot := got[k]
		p := path + "[" + k + "]"
		switch {
		case !inGot:
			diffs = append(diffs, valuediff.Difference{Path: p, Want: valuediff.Render(w), Got: valuediff.Absent})
		case !inWant:
			diffs = append(diffs, valuediff.Difference{Path: p, Want: valuediff.Absent, Got: valuediff.Render(g)})
		case w != g:
			diffs = append(diffs, valuediff.Difference{Path: p, Want: valuediff.Render(w), Got: valuediff.Render(g)})
		}
	}
	return diffs
}

// unstructured converts a pod spec with the API machinery's converter. The
// converter does not fail on a well-formed PodSpec; should it, the struct is
// returned as is and Values reads it through its JSON encoding.
func unstructured(spec *corev1.PodSpec) any {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(spec)
	if err != nil {
		return spec
	}
	return u
}

// unified renders both views as YAML and diffs them.
func unified(want, got podView) string {
	diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        lines(toYAML(want)),
		B:        lines(toYAML(got)),
		FromFile: "want",
		ToFile:   "got",
		Context:  3,
	})
	if err != nil {
		return fmt.Sprintf("(unable to render the diff: %v)", err)
	}
	return diff
}

// lines splits text into lines that keep their newline, without the empty
// line difflib.SplitLines makes of a final newline.
func lines(text string) []string {
	return difflib.SplitLines(strings.TrimSuffix(text, "\n"))
}

func toYAML(v podView) string {
	out, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprintf("# unable to render as YAML: %v\n", err)
	}
	return string(out)
}
