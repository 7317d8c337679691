package tailbuf

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
)

const (
	// Lines is how many of the last lines a Buffer keeps.
	Lines = 20
	// MaxLineBytes is the most of one line kept in memory; the rest is
	// counted, not kept.
	MaxLineBytes = 2 << 10
)

// Buffer keeps the last Lines lines written to it, each cut at
// MaxLineBytes: at most about Lines × MaxLineBytes bytes, however much
// is written. Safe for concurrent use (a process's stdout and stderr may
// share one). The zero value is ready to use.
type Buffer struct {
	mu    sync.Mutex
	lines [Lines]string
	next  int // index in lines of the next complete line
	count int // complete lines seen, up to Lines
	cur   bytes.Buffer
	cut   int // bytes of the current line not kept
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.keep(p)
			break
		}
		b.keep(p[:i])
		b.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// keep adds to the current line what fits under MaxLineBytes.
func (b *Buffer) keep(p []byte) {
	room := MaxLineBytes - b.cur.Len()
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		b.cur.Write(p[:room])
	}
	b.cut += len(p) - room
}

func (b *Buffer) endLine() {
	line := b.cur.String()
	if b.cut > 0 {
		line += fmt.Sprintf(" … [%d more bytes of this line not kept]", b.cut)
	}
	b.lines[b.next] = line
	b.next = (b.next + 1) % Lines
	b.count = min(b.count+1, Lines)
	b.cur.Reset()
	b.cut = 0
}

// Tail returns the last lines written (the unfinished one included), ""
// when nothing.
func (b *Buffer) Tail() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for i := range b.count {
		out = append(out, b.lines[(b.next-b.count+i+Lines)%Lines])
	}
	if b.cur.Len() > 0 || b.cut > 0 {
		line := b.cur.String()
		if b.cut > 0 {
			line += fmt.Sprintf(" … [%d more bytes of this line not kept]", b.cut)
		}
		out = append(out, line)
	}
	if len(out) > Lines {
		out = out[len(out)-Lines:]
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
