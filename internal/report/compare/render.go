package compare

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"presetsim.dev/presetsim/outcome"
)

// Files are the files of the comparison, by name.
func (m *Matrix) Files() map[string]func(io.Writer) error {
	return map[string]func(io.Writer) error{"compare.md": m.WriteMarkdown, "compare.html": m.WriteHTML}
}

// WriteMarkdown writes the matrix as a Markdown page: the implementations,
// the rules table, then the failures and declared differences.
func (m *Matrix) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# PodPreset conformance of %d implementations\n\n", len(m.Runs))
	for _, run := range m.Runs {
		s := run.Summary
		source := run.Source
		if link := m.Link(run); link != "" {
			source = fmt.Sprintf("[report](%s)", link)
		}
		fmt.Fprintf(&b, "- **%s**: %s on %s (%s); %s; %s\n", escapeMarkdown(run.Name), run.Verdict(), s.Backend, s.Version, run.Totals(), source)
	}
	b.WriteString("\n| rule | what it says |")
	for _, run := range m.Runs {
		fmt.Fprintf(&b, " %s |", escapeMarkdown(run.Header()))
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(m.Runs)) + "\n")
	for _, row := range m.Rows {
		fmt.Fprintf(&b, "| %s | %s |", row.ID, escapeMarkdown(row.Title))
		for _, c := range row.Cells {
			text := c.Text()
			if c.Outcome == outcome.Failed {
				text = "**" + text + "**"
			}
			fmt.Fprintf(&b, " %s |", text)
		}
		b.WriteString("\n")
	}
	if ex := m.Explained(); len(ex) > 0 {
		b.WriteString("\n## Failures and declared differences\n")
		run := ""
		for _, e := range ex {
			if e.Run != run {
				run = e.Run
				fmt.Fprintf(&b, "\n### %s\n\n", escapeMarkdown(run))
			}
			for _, it := range e.Items {
				fmt.Fprintf(&b, "- %s %s: %s\n", e.Rule, e.Outcome, escapeMarkdown(it.Note))
				if it.Detail != "" {
					fmt.Fprintf(&b, "\n  ```\n%s\n  ```\n", indentLines(it.Detail, "  "))
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// indentLines prefixes every line of text.
func indentLines(text, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n"+prefix)
}

// WriteHTML writes one self-contained page (no external assets): the runs
// in full with links to their reports, the matrix under short headers,
// each cell's reasons on hover, every failure with its message and diff
// below it, and a box that hides the rules on which every implementation
// agrees. When its script has run it marks the body data-rendered="ok",
// data-widest-header and data-tallest-header (pixels), which tests read.
func (m *Matrix) WriteHTML(w io.Writer) error {
	if err := page.Execute(w, m); err != nil {
		return fmt.Errorf("unable to render the comparison: %w", err)
	}
	return nil
}

var page = template.Must(template.New("compare").Funcs(template.FuncMap{"join": strings.Join}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>presetsim: {{len .Runs}} implementations compared</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.pass { background: #dff5df; }
.fail { background: #f9d6d5; font-weight: bold; }
.differs { background: #fff1c9; }
.unsupported, .untested, .not-claimed, .not-applicable, .absent { background: #f1f1f1; color: #666; }
.hidden { display: none; }
li { margin: 0.2em 0; }
th.run { max-width: 16em; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 6px; white-space: pre-wrap; font-size: 12px; }
</style>
</head>
<body>
<h1>PodPreset conformance of {{len .Runs}} implementations</h1>
<ul id="runs">
{{range .Runs}}<li class="run"><strong>{{.Name}}</strong>: <span class="{{if .Summary.Passed}}pass{{else}}fail{{end}}">{{.Verdict}}</span> on {{.Summary.Backend}} ({{.Summary.Version}}); {{.Totals}}; {{with $.Link .}}<a href="{{.}}">report</a>{{else}}{{.Source}}{{end}}</li>
{{end}}</ul>
<label><input type="checkbox" id="only-differing"> only rules on which the implementations differ</label>
<table id="matrix">
<tr><th>rule</th><th>what it says</th>{{range .Runs}}<th class="run" title="{{.Name}}">{{.Header}}</th>{{end}}</tr>
{{range .Rows}}<tr class="rule" data-agree="{{.Agree}}"><td>{{.ID}}</td><td>{{.Title}}</td>{{range .Cells}}<td class="{{.Outcome}}"{{if .Notes}} title="{{join .Notes "\n"}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table>
{{with .Explained}}<h2>Failures and declared differences</h2>
<ul id="explained">
{{range .}}<li><strong>{{.Run}}</strong> · {{.Rule}} <span class="{{.Outcome}}">{{.Outcome}}</span><ul>{{range .Items}}<li>{{.Note}}{{with .Detail}}<pre>{{.}}</pre>{{end}}</li>{{end}}</ul></li>
{{end}}</ul>{{end}}
<script>
(function () {
  var box = document.getElementById("only-differing");
  var rows = document.querySelectorAll("tr.rule");
  box.addEventListener("change", function () {
    rows.forEach(function (r) {
      r.classList.toggle("hidden", box.checked && r.dataset.agree === "true");
    });
  });
  var widest = 0, tallest = 0;
  document.querySelectorAll("th.run").forEach(function (h) {
    var box = h.getBoundingClientRect();
    widest = Math.max(widest, box.width);
    tallest = Math.max(tallest, box.height);
  });
  document.body.dataset.widestHeader = String(Math.round(widest));
  document.body.dataset.tallestHeader = String(Math.round(tallest));
  document.body.dataset.rendered = "ok";
})();
</script>
</body>
</html>
`))
