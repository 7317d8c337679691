package preview

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	"github.com/pmezard/go-difflib/difflib"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

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

// WriteYAML writes the admitted pods as a multi-document YAML stream, each
// preceded by its summary as comments.
func WriteYAML(w io.Writer, results []Result) error {
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		for _, l := range Summary(r) {
			fmt.Fprintf(w, "# %s\n", l)
		}
		b, err := podYAML(r.Output)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes a JSON array with, for each pod, its source, the presets
// applied, the warnings and the admitted pod.
func WriteJSON(w io.Writer, results []Result) error {
	type entry struct {
		Source   string         `json:"source"`
		Applied  []string       `json:"applied"`
		Warnings []string       `json:"warnings"`
		Pod      map[string]any `json:"pod"`
	}
	out := make([]entry, 0, len(results))
	for _, r := range results {
		pod, err := podMap(r.Output)
		if err != nil {
			return err
		}
		out = append(out, entry{Source: r.Source, Applied: nonNil(r.Applied), Warnings: nonNil(r.Warnings), Pod: pod})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteDiff writes, for each pod, a unified diff from the pod as submitted to
// the pod as admitted (nothing for a pod admission left alone), coloured
// for a terminal when color is set.
func WriteDiff(w io.Writer, results []Result, color bool) error {
	for _, r := range results {
		for _, l := range Summary(r) {
			fmt.Fprintf(w, "# %s\n", l)
		}
		before, err := podYAML(r.Input)
		if err != nil {
			return err
		}
		after, err := podYAML(r.Output)
		if err != nil {
			return err
		}
		diff, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(string(before)), B: difflib.SplitLines(string(after)),
			FromFile: r.Source + " (submitted)", ToFile: r.Source + " (admitted)", Context: 3,
		})
		if err != nil {
			return err
		}
		if diff == "" {
			fmt.Fprintf(w, "# %s: unchanged\n", r.Source)
			continue
		}
		for _, line := range difflib.SplitLines(diff) {
			fmt.Fprint(w, colorize(line, color))
		}
	}
	return nil
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

func podYAML(pod *corev1.Pod) ([]byte, error) {
	m, err := podMap(pod)
	if err != nil {
		return nil, err
	}
	return yaml.Marshal(m)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteExplanation writes, for each pod, what each preset does to it and
// why, one line per preset, a conflict's items on lines of their own.
func WriteExplanation(w io.Writer, results []Result) error {
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (namespace %s):\n", r.Source, r.Input.Namespace)
		if len(r.Explained) == 0 {
			fmt.Fprintln(w, "  no PodPreset in the input")
		}
		for _, v := range r.Explained {
			fmt.Fprintf(w, "  %s\n", v)
			for _, a := range v.Added {
				fmt.Fprintf(w, "      added %s\n", a)
			}
			for _, s := range v.Skipped {
				fmt.Fprintf(w, "      skipped as identical %s\n", s)
			}
		}
		// The explanation shows each conflict; other warnings follow it.
		conflicts := conflict.Messages(r.Conflicts)
		for _, warning := range r.Warnings {
			if !slices.Contains(conflicts, warning) {
				fmt.Fprintf(w, "  warning: %s\n", warning)
			}
		}
	}
	return nil
}

// WriteExplanationJSON writes the explanations as a JSON array, one entry
// per pod.
func WriteExplanationJSON(w io.Writer, results []Result) error {
	type entry struct {
		Source    string            `json:"source"`
		Namespace string            `json:"namespace"`
		Presets   []explain.Verdict `json:"presets"`
	}
	out := make([]entry, 0, len(results))
	for _, r := range results {
		out = append(out, entry{Source: r.Source, Namespace: r.Input.Namespace, Presets: append([]explain.Verdict{}, r.Explained...)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
