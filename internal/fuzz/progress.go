package fuzz

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"presetsim.dev/presetsim/internal/words"
)

// progress shows how far a run is: a bar redrawn in place on a terminal,
// a line every 5 seconds elsewhere (a CI log).
type progress struct {
	out      io.Writer
	total    int
	terminal bool
	last     time.Time
	start    time.Time
}

func newProgress(out io.Writer, total int) *progress {
	p := &progress{out: out, total: total, start: time.Now(), last: time.Now()}
	if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.terminal = true
	}
	return p
}

func (p *progress) update(done, kinds int) {
	if p.out == nil {
		return
	}
	switch {
	case p.terminal && time.Since(p.last) > 100*time.Millisecond:
		width := 30
		filled := width * done / max(p.total, 1)
		fmt.Fprintf(p.out, "\r[%s%s] %d/%d cases, %s of disagreement", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, p.total, words.Count(kinds, "kind"))
		p.last = time.Now()
	case !p.terminal && time.Since(p.last) > 5*time.Second:
		fmt.Fprintf(p.out, "%d/%d cases, %s of disagreement, %s\n", done, p.total, words.Count(kinds, "kind"), time.Since(p.start).Round(time.Second))
		p.last = time.Now()
	}
}

// finish says how many cases ran, and admissions, at what pace.
func (p *progress) finish(done, admissions, kinds int) {
	if p.out == nil {
		return
	}
	if p.terminal {
		fmt.Fprint(p.out, "\r\033[K")
	}
	elapsed := time.Since(p.start)
	fmt.Fprintf(p.out, "%d cases (%s) in %s (%.0f cases/s, %.0f admissions/s), %s of disagreement\n", done, words.Count(admissions, "admission"),
		elapsed.Round(time.Millisecond), float64(done)/elapsed.Seconds(), float64(admissions)/elapsed.Seconds(), words.Count(kinds, "kind"))
}
