package kindcluster

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"sigs.k8s.io/kind/pkg/log"
)

// logger passes kind's user-facing messages (V(0), warnings and errors) to
// the harness's progress writer, a line each, and drops its debug output.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func newLogger(w io.Writer) *logger { return &logger{w: w} }

func (l *logger) print(prefix, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	msg = strings.TrimRight(msg, "\n")
	if strings.TrimSpace(msg) == "" {
		return
	}
	fmt.Fprintf(l.w, "kind: %s%s\n", prefix, msg)
}

func (l *logger) Warn(msg string)                           { l.print("warning: ", msg) }
func (l *logger) Warnf(format string, args ...interface{})  { l.Warn(fmt.Sprintf(format, args...)) }
func (l *logger) Error(msg string)                          { l.print("error: ", msg) }
func (l *logger) Errorf(format string, args ...interface{}) { l.Error(fmt.Sprintf(format, args...)) }

func (l *logger) V(level log.Level) log.InfoLogger {
	if level > 0 {
		return log.NoopInfoLogger{}
	}
	return info{l}
}

type info struct{ l *logger }

func (i info) Info(msg string)                          { i.l.print("", msg) }
func (i info) Infof(format string, args ...interface{}) { i.Info(fmt.Sprintf(format, args...)) }
func (i info) Enabled() bool                            { return true }
