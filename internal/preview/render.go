package preview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	"github.com/pmezard/go-difflib/difflib"
	yamlv2 "go.yaml.in/yaml/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/internal/explain"
)

// Summary is one line per pod: what was applied, or each conflict.
func Summary(r Result) []string {
	var lines []string
	switch {
	case len(r.Applied) > 0:
		lines = append(lines, fmt.Sprintf("%s: applied %s", r.Source, strings.Join(r.Applied, ", ")))
	case !r.Conflicted():
		lines = append(lines, fmt.Sprintf("%s: no preset applied", r.Source))
	}
	for _, w := range r.Warnings {
		lines = append(lines, fmt.Sprintf("%s: %s", r.Source, w))
	}
	return lines
}

// Format is one of apply's outputs, made a result at a time: Render makes
// one result's part (on any goroutine); a Writer puts the parts together.
type Format struct {
	Render func(Result) ([]byte, error)
	// Open comes before the first part, Between between two, Close after
	// the last; Empty stands alone when there is no result.
	Open, Between, Close, Empty string
}

// YAML: the admitted pods as a multi-document YAML stream, each preceded
// by its summary as comments.
var YAML = Format{Render: renderYAML, Between: "---\n"}

func renderYAML(r Result) ([]byte, error) {
	b := summaryComments(r)
	pod, err := podYAML(r.Output)
	if err != nil {
		return nil, err
	}
	b.Write(pod)
	return b.Bytes(), nil
}

// summaryComments is a buffer holding the result's summary, a YAML
// comment per line, for a part to go on from.
func summaryComments(r Result) *bytes.Buffer {
	var b bytes.Buffer
	for _, l := range Summary(r) {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	return &b
}

// JSON: a JSON array with, for each pod, its source, the presets applied,
// the warnings and the admitted pod.
var JSON = jsonArray(func(r Result) (any, error) {
	type entry struct {
		Source   string         `json:"source"`
		Applied  []string       `json:"applied"`
		Warnings []string       `json:"warnings"`
		Pod      map[string]any `json:"pod"`
	}
	pod, err := podMap(r.Output)
	if err != nil {
		return nil, err
	}
	return entry{Source: r.Source, Applied: nonNil(r.Applied), Warnings: nonNil(r.Warnings), Pod: pod}, nil
})

// jsonArray is the Format of a JSON array, indented by two spaces, whose
// entries entry makes.
func jsonArray(entry func(Result) (any, error)) Format {
	return Format{
		Render: func(r Result) ([]byte, error) {
			e, err := entry(r)
			if err != nil {
				return nil, err
			}
			b, err := json.MarshalIndent(e, "  ", "  ")
			if err != nil {
				return nil, err
			}
			return append([]byte("  "), b...), nil
		},
		Open: "[\n", Between: ",\n", Close: "\n]\n", Empty: "[]\n",
	}
}

// Diff is, for each pod, a unified diff from the pod as submitted to the
// pod as admitted ("unchanged" for a pod admission left alone), coloured
// for a terminal when color is set.
func Diff(color bool) Format {
	return Format{Render: func(r Result) ([]byte, error) {
		b := summaryComments(r)
		before, err := podYAML(r.Input)
		if err != nil {
			return nil, err
		}
		after, err := podYAML(r.Output)
		if err != nil {
			return nil, err
		}
		diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(string(before)), B: difflib.SplitLines(string(after)),
			FromFile: r.Source + " (submitted)", ToFile: r.Source + " (admitted)", Context: 3,
		})
		if err != nil {
			return nil, err
		}
		if diff == "" {
			fmt.Fprintf(b, "# %s: unchanged\n", r.Source)
			return b.Bytes(), nil
		}
		for _, line := range difflib.SplitLines(diff) {
			b.WriteString(colorize(line, color))
		}
		return b.Bytes(), nil
	}}
}

// Writer writes a Format's parts, in the order given, to w.
type Writer struct {
	w      io.Writer
	format Format
	parts  int
}

// NewWriter is a Writer of format's parts to w.
func NewWriter(w io.Writer, format Format) *Writer { return &Writer{w: w, format: format} }

// Write writes one result's part.
func (w *Writer) Write(part []byte) error {
	glue := w.format.Between
	if w.parts == 0 {
		glue = w.format.Open
	}
	w.parts++
	if _, err := io.WriteString(w.w, glue); err != nil {
		return err
	}
	_, err := w.w.Write(part)
	return err
}

// Close ends what was written.
func (w *Writer) Close() error {
	end := w.format.Close
	if w.parts == 0 {
		end = w.format.Empty
	}
	_, err := io.WriteString(w.w, end)
	return err
}

// WriteAll writes the results in format.
func WriteAll(w io.Writer, results []Result, format Format) error {
	out := NewWriter(w, format)
	for _, r := range results {
		part, err := format.Render(r)
		if err != nil {
			return err
		}
		if err := out.Write(part); err != nil {
			return err
		}
	}
	return out.Close()
}

func colorize(line string, color bool) string {
	if !color {
		return line
	}
	code := ""
	switch {
	case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		code = "1"
	case strings.HasPrefix(line, "+"):
		code = "32"
	case strings.HasPrefix(line, "-"):
		code = "31"
	case strings.HasPrefix(line, "@@"):
		code = "36"
	}
	if code == "" {
		return line
	}
	return "\x1b[" + code + "m" + strings.TrimSuffix(line, "\n") + "\x1b[0m\n"
}

// podMap is the pod as an object, without the empty fields that Go types
// add when encoded (creationTimestamp: null, status: {}).
func podMap(pod *corev1.Pod) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return nil, err
	}
	if md, ok := m["metadata"].(map[string]any); ok && md["creationTimestamp"] == nil {
		delete(md, "creationTimestamp")
	}
	if st, ok := m["status"].(map[string]any); ok && len(st) == 0 {
		delete(m, "status")
	}
	m["apiVersion"], m["kind"] = "v1", "Pod"
	return m, nil
}

// podYAML is the pod as YAML, as sigs.k8s.io/yaml (kubectl) writes it:
// keys in order, YAML 1.1 scalars. It writes podMap with that library's
// own YAML encoder directly, which is the same text without its round trip
// through JSON (twice as fast).
func podYAML(pod *corev1.Pod) ([]byte, error) {
	m, err := podMap(pod)
	if err != nil {
		return nil, err
	}
	return yamlv2.Marshal(m)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Explanation is, for each pod, what each preset does to it and why, one
// line per preset, a conflict's items on lines of their own.
var Explanation = Format{Render: renderExplanation, Between: "\n"}

func renderExplanation(r Result) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s (namespace %s):\n", r.Source, r.Input.Namespace)
	if len(r.Explained) == 0 {
		fmt.Fprintln(&b, "  no PodPreset in the input")
	}
	for _, v := range r.Explained {
		fmt.Fprintf(&b, "  %s\n", v)
		for _, a := range v.Added {
			fmt.Fprintf(&b, "      added %s\n", a)
		}
		for _, s := range v.Skipped {
			fmt.Fprintf(&b, "      skipped as identical %s\n", s)
		}
	}
	// The explanation shows each conflict; other warnings follow it.
	conflicts := conflict.Messages(r.Conflicts)
	for _, warning := range r.Warnings {
		if !slices.Contains(conflicts, warning) {
			fmt.Fprintf(&b, "  warning: %s\n", warning)
		}
	}
	return b.Bytes(), nil
}

// ExplanationJSON is the explanations as a JSON array, one entry per pod.
var ExplanationJSON = jsonArray(func(r Result) (any, error) {
	type entry struct {
		Source    string            `json:"source"`
		Namespace string            `json:"namespace"`
		Presets   []explain.Verdict `json:"presets"`
	}
	return entry{Source: r.Source, Namespace: r.Input.Namespace, Presets: append([]explain.Verdict{}, r.Explained...)}, nil
})
