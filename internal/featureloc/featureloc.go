package featureloc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	gherkin "github.com/cucumber/gherkin/go/v26"
	messages "github.com/cucumber/messages/go/v21"
)

// Step is where a step and its DocString are in a feature file.
type Step struct {
	File    string
	Line    int    // the step's line
	DocLine int    // the first content line of its DocString; 0 when none
	Keyword string // as written, with its space: "Given ", "And "
}

// Place is where a pickle is in its feature file, as a report that names
// lines (Cucumber's JSON) says it: its feature, its scenario (or example
// row), its steps.
type Place struct {
	Feature  Heading
	Scenario Heading
	// Example and Row name the example of an outline the pickle is: the
	// Examples' name and the row's place in its table (1 for the first row
	// under the header); Row is 0 for a scenario that is no example.
	Example string
	Row     int
	// TagLines are the lines of the pickle's tags, in the pickle's order.
	TagLines []int
	// FeatureTags are the feature's own tags.
	FeatureTags []Tag
	Steps       []Step
}

// Tag is a tag and its line.
type Tag struct {
	Name string
	Line int
}

// Heading is a feature's or a scenario's keyword, name, line and
// description.
type Heading struct {
	Keyword, Name, Description string
	Line                       int
}

// scenarioPlace is a scenario's heading, or an example row's: its
// outline's heading at the row's line, with the Examples' name and the
// row's place (Place's Example and Row).
type scenarioPlace struct {
	heading Heading
	example string
	row     int
}

// Locator maps godog's pickles back to lines of the feature files. godog
// does not expose the parsed documents, so each file is parsed again here and
// a pickle is matched by name and steps (text and arguments).
type Locator struct {
	fsys  fs.FS // nil: the operating system's files
	mu    sync.Mutex
	files map[string]*parsedFile
	order []string // of files, the oldest parse first
}

// cachedFiles bounds the parsed files a Locator keeps: a run goes through
// its files in order, a few at a time, and a file parsed again costs
// little, while keeping every file of a run of 10,000 scenarios took 16
// MiB (measured 2026-11-26).
const cachedFiles = 32

type parsedFile struct {
	pickles   []*messages.Pickle
	steps     map[string]Step          // by AST node id of this parse
	scenarios map[string]scenarioPlace // of scenarios and example rows, by AST node id
	tags      map[string]int           // the line of each tag, by AST node id
	feature   Heading
	tagged    []Tag // the feature's tags
	err       error
}

// New returns a Locator of the feature files of fsys (the operating
// system's files when nil) that has parsed none yet; it is safe for
// concurrent use.
func New(fsys fs.FS) *Locator { return &Locator{fsys: fsys, files: map[string]*parsedFile{}} }

// Locate returns the location of each of the pickle's steps, in order.
func (l *Locator) Locate(p *messages.Pickle) ([]Step, error) {
	place, err := l.Place(p)
	return place.Steps, err
}

// Place returns where the pickle is: its feature, its scenario (for an
// outline's example, the example's row) and each of its steps, in order.
func (l *Locator) Place(p *messages.Pickle) (Place, error) {
	f := l.parse(p.Uri)
	if f.err != nil {
		return Place{}, f.err
	}
	for _, candidate := range f.pickles {
		if !samePickle(candidate, p) {
			continue
		}
		place := Place{Feature: f.feature, FeatureTags: f.tagged, Steps: make([]Step, len(candidate.Steps))}
		for _, id := range candidate.AstNodeIds {
			if sp, ok := f.scenarios[id]; ok {
				place.Scenario, place.Example, place.Row = sp.heading, sp.example, sp.row
			}
		}
		for _, tag := range candidate.Tags {
			place.TagLines = append(place.TagLines, f.tags[tag.AstNodeId])
		}
		for i, st := range candidate.Steps {
			if len(st.AstNodeIds) > 0 {
				place.Steps[i] = f.steps[st.AstNodeIds[0]]
			}
		}
		return place, nil
	}
	return Place{}, fmt.Errorf("scenario %q not found in %s", p.Name, p.Uri)
}

// File is the feature file of a pickle's URI: godog keeps the line of a
// path given as FILE:LINE in the URI.
func File(uri string) string {
	if i := strings.LastIndexByte(uri, ':'); i > 0 {
		if _, err := strconv.Atoi(uri[i+1:]); err == nil {
			return uri[:i]
		}
	}
	return uri
}

func (l *Locator) parse(uri string) *parsedFile {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.files[uri]; ok {
		return f
	}
	f := &parsedFile{steps: map[string]Step{}, scenarios: map[string]scenarioPlace{}, tags: map[string]int{}}
	l.files[uri] = f
	if l.order = append(l.order, uri); len(l.order) > cachedFiles {
		delete(l.files, l.order[0])
		l.order = l.order[1:]
	}
	doc, pickles, err := Parse(l.fsys, uri)
	if err != nil {
		f.err = err
		return f
	}
	f.pickles = pickles
	if ft := doc.Feature; ft != nil {
		f.feature = Heading{Keyword: ft.Keyword, Name: ft.Name, Description: ft.Description, Line: int(ft.Location.Line)}
		for _, tag := range ft.Tags {
			f.tags[tag.Id] = int(tag.Location.Line)
			f.tagged = append(f.tagged, Tag{Name: tag.Name, Line: int(tag.Location.Line)})
		}
	}
	walk(doc, func(sc *messages.Scenario) {
		heading := Heading{Keyword: sc.Keyword, Name: sc.Name, Description: sc.Description, Line: int(sc.Location.Line)}
		f.scenarios[sc.Id] = scenarioPlace{heading: heading}
		for _, tag := range sc.Tags {
			f.tags[tag.Id] = int(tag.Location.Line)
		}
		for _, ex := range sc.Examples {
			for _, tag := range ex.Tags {
				f.tags[tag.Id] = int(tag.Location.Line)
			}
			for i, row := range ex.TableBody {
				atRow := heading
				atRow.Line = int(row.Location.Line)
				f.scenarios[row.Id] = scenarioPlace{heading: atRow, example: ex.Name, row: i + 1}
			}
		}
	}, func(st *messages.Step) {
		loc := Step{File: uri, Line: int(st.Location.Line), Keyword: st.Keyword}
		if st.DocString != nil {
			loc.DocLine = int(st.DocString.Location.Line) + 1
		}
		f.steps[st.Id] = loc
	})
	return f
}

// Parse reads and parses the feature file of uri (File) in fsys (the
// operating system's files when nil) and returns the document and its
// pickles, which name uri.
func Parse(fsys fs.FS, uri string) (*messages.GherkinDocument, []*messages.Pickle, error) {
	data, err := ReadFile(fsys, File(uri))
	if err != nil {
		return nil, nil, err
	}
	return ParseData(data, uri)
}

// ParseData parses the contents of the feature file of uri, as Parse.
func ParseData(data []byte, uri string) (*messages.GherkinDocument, []*messages.Pickle, error) {
	ids := &messages.Incrementing{}
	doc, err := gherkin.ParseGherkinDocument(strings.NewReader(string(data)), ids.NewId)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	return doc, gherkin.Pickles(*doc, uri, ids.NewId), nil
}

// ErrSyntax is Parse's error for a file that is not valid Gherkin.
var ErrSyntax = errors.New("not valid Gherkin")

// DocLines maps the AST node id of each step with a DocString to the line
// of the DocString's first line of content.
func DocLines(doc *messages.GherkinDocument) map[string]int {
	out := map[string]int{}
	walk(doc, nil, func(st *messages.Step) {
		if st.DocString != nil {
			out[st.Id] = int(st.DocString.Location.Line) + 1
		}
	})
	return out
}

// Lines maps the AST node ids a pickle names — its scenario, its example
// row, its steps — to their lines.
func Lines(doc *messages.GherkinDocument) map[string]int {
	out := map[string]int{}
	walk(doc, func(sc *messages.Scenario) {
		out[sc.Id] = int(sc.Location.Line)
		for _, ex := range sc.Examples {
			for _, row := range ex.TableBody {
				out[row.Id] = int(row.Location.Line)
			}
		}
	}, func(st *messages.Step) {
		out[st.Id] = int(st.Location.Line)
	})
	return out
}

// walk calls scenario (when not nil) for each scenario of doc and step for
// each step, Backgrounds' and Rules' included.
func walk(doc *messages.GherkinDocument, scenario func(*messages.Scenario), step func(*messages.Step)) {
	if doc.Feature == nil {
		return
	}
	steps := func(list []*messages.Step) {
		for _, st := range list {
			step(st)
		}
	}
	visit := func(bg *messages.Background, sc *messages.Scenario) {
		if bg != nil {
			steps(bg.Steps)
		}
		if sc != nil {
			if scenario != nil {
				scenario(sc)
			}
			steps(sc.Steps)
		}
	}
	for _, child := range doc.Feature.Children {
		visit(child.Background, child.Scenario)
		if child.Rule != nil {
			for _, rc := range child.Rule.Children {
				visit(rc.Background, rc.Scenario)
			}
		}
	}
}

func samePickle(a, b *messages.Pickle) bool {
	if a.Name != b.Name || len(a.Steps) != len(b.Steps) {
		return false
	}
	for i := range a.Steps {
		if a.Steps[i].Text != b.Steps[i].Text || docString(a.Steps[i]) != docString(b.Steps[i]) {
			return false
		}
	}
	return true
}

func docString(s *messages.PickleStep) string {
	if s.Argument == nil || s.Argument.DocString == nil {
		return ""
	}
	return s.Argument.DocString.Content
}

// ReadFile reads a file of fsys, or of the operating system when fsys is
// nil (where a path may be absolute or go up, as a user gives it).
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	if fsys == nil {
		return os.ReadFile(name)
	}
	return fs.ReadFile(fsys, name)
}

// Stat and WalkDir are os.Stat and filepath.WalkDir on fsys, or on the
// operating system's files when it is nil, as ReadFile.
func Stat(fsys fs.FS, name string) (fs.FileInfo, error) {
	if fsys == nil {
		return os.Stat(name)
	}
	return fs.Stat(fsys, name)
}

func WalkDir(fsys fs.FS, root string, fn fs.WalkDirFunc) error {
	if fsys == nil {
		return filepath.WalkDir(root, fn)
	}
	return fs.WalkDir(fsys, root, fn)
}
