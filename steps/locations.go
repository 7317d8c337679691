package steps

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
)

// definedAt is where each step is defined (steps.go:NN), by expression,
// recorded as the registrar registers it.
var definedAt sync.Map // string → string

// recordDefinition records the file and line that called Step.
func recordDefinition(expr string, skip int) {
	if _, ok := definedAt.Load(expr); ok {
		return
	}
	if _, file, line, ok := runtime.Caller(skip + 1); ok {
		definedAt.Store(expr, fmt.Sprintf("%s:%d", filepath.Base(file), line))
	}
}

// stubLocation is what godog's pretty formatter prints as a step's
// definition: the registrar's wrapper, the same for every step.
var (
	stubLocation = regexp.MustCompile(`# \S+\.go:\d+ -> reflect\.makeFuncStub`)
	colour       = regexp.MustCompile("\x1b\\[[0-9;]*m")
	keyword      = regexp.MustCompile(`^\s*(Given|When|Then|And|But|\*)\s+`)
)

// locations is a writer for godog's pretty output that puts the step
// definition's own place (steps.go:NN) where godog prints the wrapper's,
// line by line; a step it cannot tell loses the comment.
type locations struct {
	out  io.Writer
	buf  []byte
	exps []*regexp.Regexp
}

func newLocations(out io.Writer) *locations {
	return &locations{out: out, exps: Expressions()}
}

func (l *locations) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if _, err := io.WriteString(l.out, l.line(string(l.buf[:i+1]))); err != nil {
			return len(p), err
		}
		l.buf = l.buf[i+1:]
	}
}

// Flush writes what is left of a last line without its newline.
func (l *locations) Flush() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := io.WriteString(l.out, l.line(string(l.buf)))
	l.buf = nil
	return err
}

func (l *locations) line(s string) string {
	loc := stubLocation.FindStringIndex(s)
	if loc == nil {
		return s
	}
	text := keyword.ReplaceAllString(strings.TrimSpace(colour.ReplaceAllString(s[:loc[0]], "")), "")
	for _, re := range l.exps {
		if re.MatchString(text) {
			if at, ok := definedAt.Load(re.String()); ok {
				return s[:loc[0]] + "# " + at.(string) + s[loc[1]:]
			}
		}
	}
	return strings.TrimRight(s[:loc[0]], " ") + s[loc[1]:]
}

// prettyToOutput reports whether a format list writes godog's pretty
// format to the run's output (not to a file of its own).
func prettyToOutput(format string) bool {
	for part := range strings.SplitSeq(format, ",") {
		if strings.TrimSpace(part) == "pretty" {
			return true
		}
	}
	return false
}
