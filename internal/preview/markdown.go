package preview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"
)

// WriteChangesMarkdown writes the changes as Markdown a review can quote: a
// heading naming both sides, one sentence of counts, then per pod admitted
// differently its new conflicts, the items added, removed or changed as a
// table, and the presets it now gets or no longer gets.
func WriteChangesMarkdown(w io.Writer, c Changes) error {
	blocks := []string{
		fmt.Sprintf("### PodPresets: %s → %s", code(c.Base), code(c.Head)),
		upper(c.Summary()) + ".",
	}
	for _, p := range c.Changed {
		blocks = append(blocks, "#### "+cell(p.Title()))
		switch p.Side {
		case SideHead:
			blocks = append(blocks, fmt.Sprintf("New in %s.", code(c.Head)))
		case SideBase:
			blocks = append(blocks, fmt.Sprintf("Only in %s: %s no longer has it.", code(c.Base), code(c.Head)))
			continue
		}
		if len(p.NewConflicts) > 0 {
			blocks = append(blocks, "**Now in conflict**: no preset applies to it (R4.2).", conflictList(p.NewConflicts))
		}
		if len(p.ResolvedConflicts) > 0 {
			blocks = append(blocks, "**No longer in conflict**:", conflictList(p.ResolvedConflicts))
		}
		if len(p.Items) > 0 {
			var t strings.Builder
			t.WriteString("| change | item | before | after |\n|---|---|---|---|")
			for _, i := range p.Items {
				fmt.Fprintf(&t, "\n| %s | %s | %s | %s |", i.Change, cell(i.String()), cell(code(i.Before)), cell(code(i.After)))
			}
			blocks = append(blocks, t.String())
		}
		var applied []string
		if len(p.AppliedNow) > 0 {
			applied = append(applied, "now applies "+codes(p.AppliedNow))
		}
		if len(p.AppliedNoLonger) > 0 {
			applied = append(applied, "no longer applies "+codes(p.AppliedNoLonger))
		}
		if len(applied) > 0 {
			blocks = append(blocks, fmt.Sprintf("Admission %s.", strings.Join(applied, "; ")))
		}
	}
	_, err := io.WriteString(w, strings.Join(blocks, "\n\n")+"\n")
	return err
}

// WriteChangesJSON writes the changes as JSON: base, head, the summary, the
// pod count and the pods admitted differently.
func WriteChangesJSON(w io.Writer, c Changes) error {
	out := struct {
		Base         string      `json:"base"`
		Head         string      `json:"head"`
		Summary      string      `json:"summary"`
		MadeConflict bool        `json:"madeConflict"`
		Pods         int         `json:"pods"`
		Changed      []PodChange `json:"changed"`
	}{c.Base, c.Head, c.Summary(), c.MadeConflict(), c.Pods, c.Changed}
	if out.Changed == nil {
		out.Changed = []PodChange{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// conflictList is a Markdown list of the conflicts, each with both items.
func conflictList(items []conflict.Item) string {
	lines := make([]string, len(items))
	for i, c := range items {
		lines[i] = fmt.Sprintf("- %s: preset %s injects %s, against %s already there", c.String(), code(c.Preset), code(c.Injected), code(c.Existing))
	}
	return strings.Join(lines, "\n")
}

// code is s as a Markdown code span ("" for nothing): fenced with more
// backticks than it holds in a row.
func code(s string) string {
	if s == "" {
		return ""
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

func codes(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = code(n)
	}
	return strings.Join(quoted, ", ")
}

// cell makes s safe in a table cell: a pipe would end it, a newline the row.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
