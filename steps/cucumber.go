package steps

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"presetsim.dev/presetsim/internal/featureloc"
)

// Cucumber is the run's report in Cucumber's JSON (what godog's cucumber
// format writes, and CI's Cucumber report readers read), made from the
// scenarios as each ends rather than by godog at the end of its run: a
// run of many scenarios keeps running in chunks (chunks.go) and keeps only
// each finished scenario's entry, and an interrupted run writes the
// scenarios that finished. SuiteOptions.Cucumber fills it; Write writes
// it.
type Cucumber struct {
	mu       sync.Mutex
	features map[string]*cucumberFeature // by feature file
}

// NewCucumber returns an empty report, for SuiteOptions.Cucumber.
func NewCucumber() *Cucumber { return &Cucumber{features: map[string]*cucumberFeature{}} }

type cucumberFeature struct {
	URI         string          `json:"uri"`
	ID          string          `json:"id"`
	Keyword     string          `json:"keyword"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Line        int             `json:"line"`
	Tags        []cucumberTag   `json:"tags,omitempty"`
	Elements    []cucumberEntry `json:"elements,omitempty"`
}

// cucumberEntry is a finished scenario's element, as JSON, with its line
// to order the feature's elements by.
type cucumberEntry struct {
	line int
	json json.RawMessage
}

func (e cucumberEntry) MarshalJSON() ([]byte, error) { return e.json, nil }

type cucumberElement struct {
	ID          string         `json:"id"`
	Keyword     string         `json:"keyword"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Line        int            `json:"line"`
	Type        string         `json:"type"`
	Tags        []cucumberTag  `json:"tags,omitempty"`
	Steps       []cucumberStep `json:"steps,omitempty"`
}

type cucumberTag struct {
	Name string `json:"name"`
	Line int    `json:"line"`
}

type cucumberStep struct {
	Keyword   string             `json:"keyword"`
	Name      string             `json:"name"`
	Line      int                `json:"line"`
	DocString *cucumberDocString `json:"doc_string,omitempty"`
	Result    cucumberResult     `json:"result"`
	Rows      []cucumberRow      `json:"rows,omitempty"`
}

type cucumberDocString struct {
	Value       string `json:"value"`
	ContentType string `json:"content_type"`
	Line        int    `json:"line"`
}

type cucumberResult struct {
	Status   string `json:"status"`
	Error    string `json:"error_message,omitempty"`
	Duration *int64 `json:"duration,omitempty"` // nanoseconds
}

type cucumberRow struct {
	Cells []string `json:"cells"`
}

// stepResult is how one step of a scenario ended.
type stepResult struct {
	status   godog.StepResultStatus
	err      error
	duration time.Duration
}

// add records a finished scenario: the pickle, where it is, and how each
// of its steps ended (a step with no result did not run: skipped).
func (c *Cucumber) add(p *godog.Scenario, place featureloc.Place, results []stepResult) error {
	file := featureloc.File(p.Uri)
	featureID := cucumberID(place.Feature.Name)
	el := cucumberElement{
		ID: featureID + ";" + cucumberID(p.Name), Keyword: place.Scenario.Keyword, Name: p.Name,
		Description: place.Scenario.Description, Line: place.Scenario.Line, Type: "scenario",
	}
	if place.Row > 0 { // an outline's example, as godog's cucumber format names it
		el.ID += fmt.Sprintf(";%s;%d", cucumberID(place.Example), place.Row+1)
	}
	for i, t := range p.Tags {
		tag := cucumberTag{Name: t.Name}
		if i < len(place.TagLines) {
			tag.Line = place.TagLines[i]
		}
		el.Tags = append(el.Tags, tag)
	}
	for i, st := range p.Steps {
		step := cucumberStep{Name: st.Text, Result: cucumberResult{Status: godog.StepSkipped.String()}}
		var loc featureloc.Step
		if i < len(place.Steps) {
			loc = place.Steps[i]
		}
		step.Keyword, step.Line = loc.Keyword, loc.Line
		if arg := st.Argument; arg != nil && arg.DocString != nil {
			// DocLine is the DocString's first line of content; the
			// report names its opening quotes' line.
			step.DocString = &cucumberDocString{Value: arg.DocString.Content, ContentType: strings.TrimSpace(arg.DocString.MediaType), Line: max(loc.DocLine-1, 0)}
		}
		if arg := st.Argument; arg != nil && arg.DataTable != nil {
			for _, row := range arg.DataTable.Rows {
				var cells []string
				for _, cell := range row.Cells {
					cells = append(cells, cell.Value)
				}
				step.Rows = append(step.Rows, cucumberRow{Cells: cells})
			}
		}
		if i < len(results) {
			r := results[i]
			step.Result.Status = r.status.String()
			if r.err != nil {
				step.Result.Error = r.err.Error()
			}
			if r.duration > 0 && r.status != godog.StepSkipped { // as godog's: a skipped step took no time
				d := r.duration.Nanoseconds()
				step.Result.Duration = &d
			}
		}
		el.Steps = append(el.Steps, step)
	}
	data, err := json.Marshal(el)
	if err != nil {
		return fmt.Errorf("the Cucumber report of %s: %w", p.Name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.features[file]
	if f == nil {
		f = &cucumberFeature{URI: file, ID: featureID, Keyword: place.Feature.Keyword, Name: place.Feature.Name, Description: place.Feature.Description, Line: place.Feature.Line}
		for _, tag := range place.FeatureTags {
			f.Tags = append(f.Tags, cucumberTag{Name: tag.Name, Line: tag.Line})
		}
		c.features[file] = f
	}
	f.Elements = append(f.Elements, cucumberEntry{line: el.Line, json: data})
	return nil
}

// Write writes the report: the features by file name, each one's
// scenarios by line, indented as godog's cucumber format indents them.
func (c *Cucumber) Write(w io.Writer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A feature at a time: the whole report of a long run is tens of MB.
	if len(c.features) == 0 {
		_, err := io.WriteString(w, "[]")
		return err
	}
	for i, file := range slices.Sorted(maps.Keys(c.features)) {
		f := c.features[file]
		slices.SortStableFunc(f.Elements, func(a, b cucumberEntry) int { return a.line - b.line })
		data, err := json.MarshalIndent(f, "    ", "    ")
		if err != nil {
			return err
		}
		glue := ",\n    "
		if i == 0 {
			glue = "[\n    "
		}
		if _, err := io.WriteString(w, glue); err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n]")
	return err
}

// cucumberID is a name as Cucumber's JSON makes an id of it, as godog's
// cucumber format does: lower case, spaces as dashes.
func cucumberID(name string) string { return strings.ReplaceAll(strings.ToLower(name), " ", "-") }
