package steps

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v21"
	"golang.org/x/term"
)

// progressFormat is the name the progress formatter is registered under
// with godog; a run's "progress" means it. marksFormat is the same without
// rows, for the godog runs of a chunked run (chunks.go), whose writer is
// one rows for them all: godog hands a formatter its own wrapper of the
// run's writer, so a formatter cannot tell that it continues another's.
const (
	progressFormat = "presetsim-progress"
	marksFormat    = "presetsim-marks"
)

// registerProgress adds the progress formatters to godog's registry (which
// is godog's one way to add a format), once per process.
var registerProgress = sync.OnceFunc(func() {
	godog.Format(progressFormat, "a character per step; the run's own summary says the rest", func(_ string, out io.Writer) formatters.Formatter {
		r := &rows{out: out}
		return &progress{out: r, rows: r}
	})
	godog.Format(marksFormat, "a character per step, to a writer that counts them in rows", func(_ string, out io.Writer) formatters.Formatter {
		return &progress{out: out}
	})
})

// progress prints a character per step, as godog's progress format does,
// and nothing at the end: no failures and no counts, since the run's
// summary (presetsim run prints it) gives both, from the outcomes, once.
// godog's own counts disagree with the outcomes (an unsupported or not
// claimed scenario is a pass to it).
type progress struct {
	out  io.Writer
	rows *rows // its own, which it ends; nil when the writer is a chunked run's
}

func (p *progress) mark(c string) { fmt.Fprint(p.out, c) }

// rows writes progress marks, a byte each, ending each row of stepsPerRow
// with the count so far. On a terminal (inPlace) the rows are one line: a
// full row is written over by the next, unless it holds a mark other than
// passed or skipped, which stays on screen.
type rows struct {
	mu      sync.Mutex
	out     io.Writer
	inPlace bool
	marks   int
	keep    bool // the current row holds a mark worth keeping
	clear   bool // the next mark starts a row over the last one
}

const stepsPerRow = 70

// eraseRow returns a terminal's cursor to the row's start and erases it.
const eraseRow = "\r\x1b[K"

func (r *rows) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range b {
		if r.clear {
			if _, err := io.WriteString(r.out, eraseRow); err != nil {
				return 0, err
			}
			r.clear = false
		}
		if _, err := r.out.Write([]byte{c}); err != nil {
			return 0, err
		}
		r.keep = r.keep || (c != '.' && c != '-')
		if r.marks++; r.marks%stepsPerRow == 0 {
			fmt.Fprintf(r.out, " %d", r.marks)
			if r.inPlace && !r.keep {
				r.clear = true
			} else {
				fmt.Fprintln(r.out)
			}
			r.keep = false
		}
	}
	return len(b), nil
}

// end completes the last row with the count.
func (r *rows) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.marks%stepsPerRow != 0:
		fmt.Fprintf(r.out, "%s %d\n", strings.Repeat(" ", stepsPerRow-r.marks%stepsPerRow), r.marks)
	case r.clear:
		fmt.Fprintln(r.out)
	}
	r.clear = false
}

func (p *progress) TestRunStarted()                                   {}
func (p *progress) Feature(*messages.GherkinDocument, string, []byte) {}
func (p *progress) Pickle(*messages.Pickle)                           {}
func (p *progress) Defined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
}
func (p *progress) Passed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	p.mark(".")
}
func (p *progress) Failed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
	p.mark("F")
}
func (p *progress) Skipped(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	p.mark("-")
}
func (p *progress) Undefined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	p.mark("U")
}
func (p *progress) Pending(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {
	p.mark("P")
}
func (p *progress) Ambiguous(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
	p.mark("A")
}

func (p *progress) Summary() {
	if p.rows != nil {
		p.rows.end()
	}
}

// formats maps a run's format list (name[:file], comma-separated) to
// godog's: "progress" is this package's.
func formats(list string) string {
	parts := strings.Split(list, ",")
	for i, f := range parts {
		name, file, hasFile := strings.Cut(f, ":")
		if name == "progress" {
			parts[i] = progressFormat
			if hasFile {
				parts[i] += ":" + file
			}
		}
	}
	return strings.Join(parts, ",")
}

// isTerminal reports whether w is a terminal, where colours belong.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
