package report

import (
	"fmt"
	"html/template"
	"io"

	"presetsim.dev/presetsim/outcome"
)

// WriteHTML writes one self-contained page (no external assets): the
// summary, the rules with their outcome, and every scenario, failures
// expandable with their whole text. A small script filters the scenarios;
// when it has run it marks the body data-rendered="ok", which tests read.
func WriteHTML(w io.Writer, s *outcome.Report) error {
	if err := page.Execute(w, s); err != nil {
		return fmt.Errorf("unable to render the HTML report: %w", err)
	}
	return nil
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>presetsim: {{.Implementation}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
.meta { color: #555; margin-bottom: 1.5em; }
table { border-collapse: collapse; margin-bottom: 2em; width: 100%; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
.pass { background: #dff5df; }
.fail { background: #f9d6d5; font-weight: bold; }
.differs { background: #fff1c9; }
.unsupported, .untested, .not-claimed, .not-applicable { background: #f1f1f1; color: #666; }
.check { color: #555; font-size: 12px; }
pre { white-space: pre-wrap; margin: 0.5em 0; font-size: 12px; }
.hidden { display: none; }
</style>
</head>
<body>
<h1>presetsim conformance report: {{.Implementation}}</h1>
<div class="meta">backend {{.Backend}} · {{.Version}} · {{.Totals}} ·
<strong id="verdict">{{.Verdict}}</strong></div>
{{with .Interrupted}}<div class="meta" id="interrupted"><strong>interrupted: {{.}}</strong></div>{{end -}}
{{with .Timing}}<div class="meta" id="timing">start {{.StartSeconds}} s · suite {{.SuiteSeconds}} s · clean-up and stop {{.CleanUpSeconds}} s{{if .CleanUpError}} · <strong>the clean-up failed: {{.CleanUpError}}</strong>{{end}}</div>
{{end}}
<h2>Rules</h2>
<table id="rules">
<tr><th>rule</th><th>what it says</th><th>outcome</th><th>scenarios</th></tr>
{{range .Rules}}<tr class="rule"><td>{{.ID}}</td><td>{{.Title}}</td><td class="{{.Outcome}}">{{.Outcome}}</td><td>{{.Scenarios}}{{if .Failed}} ({{len .Failed}} failed){{end}}{{if .Declared}} ({{len .Declared}} differ as declared){{end}}</td></tr>
{{end}}</table>

<h2>Scenarios</h2>
<label><input type="checkbox" id="only-failed"> only failed</label>
<table id="scenarios">
<tr><th>feature</th><th>scenario</th><th>rules</th><th>outcome</th><th>seconds</th></tr>
{{range .Scenarios}}<tr class="scenario" data-outcome="{{.Outcome}}"><td>{{.Feature}}</td><td>{{.Scenario}}
{{if .FailedCheck}}<div class="check">failed check: {{.FailedCheck}}</div>{{end}}{{if .Failure}}<details><summary>failure</summary><pre>{{.Failure}}</pre></details>{{end}}{{if .Reason}}<div>{{.Reason}}</div>{{end}}</td>
<td>{{range .Rules}}{{.}} {{end}}</td><td class="{{.Outcome}}">{{.Outcome}}</td><td>{{printf "%.3f" .Seconds}}</td></tr>
{{end}}</table>
<script>
(function () {
  var box = document.getElementById("only-failed");
  var rows = document.querySelectorAll("tr.scenario");
  box.addEventListener("change", function () {
    rows.forEach(function (r) {
      r.classList.toggle("hidden", box.checked && r.dataset.outcome !== "fail");
    });
  });
  document.body.dataset.rendered = "ok";
})();
</script>
</body>
</html>
`))
