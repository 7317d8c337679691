package external

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Bounds on what an external webhook's output may cost, whatever it
// prints: the lines kept in memory for failure messages, and the log file.
const (
	// tailLines is how many of the process's last lines failure messages
	// show.
	tailLines = 20
	// maxLineBytes is the most of one line kept in memory; the rest is
	// counted, not kept.
	maxLineBytes = 2 << 10
	// maxLogBytes is the most written to the log file (webhook.log); a
	// note in it says where it was cut and how much more came.
	maxLogBytes = 64 << 20
)

// tailBuffer keeps the last tailLines lines written to it, each cut at
// maxLineBytes: at most about tailLines × maxLineBytes bytes, however much
// is written. Safe for concurrent use (stdout and stderr share it).
type tailBuffer struct {
	mu    sync.Mutex
	lines [tailLines]string
	next  int // index in lines of the next complete line
	count int // complete lines seen, up to tailLines
	cur   bytes.Buffer
	cut   int // bytes of the current line not kept
}

func (b *tailBuffer) Write(p []byte) (int, error) {
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

// keep adds to the current line what fits under maxLineBytes.
func (b *tailBuffer) keep(p []byte) {
	room := maxLineBytes - b.cur.Len()
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		b.cur.Write(p[:room])
	}
	b.cut += len(p) - room
}

func (b *tailBuffer) endLine() {
	line := b.cur.String()
	if b.cut > 0 {
		line += fmt.Sprintf(" … [%d more bytes of this line not kept]", b.cut)
	}
	b.lines[b.next] = line
	b.next = (b.next + 1) % tailLines
	b.count = min(b.count+1, tailLines)
	b.cur.Reset()
	b.cut = 0
}

// tail returns the last lines written (the unfinished one included), ""
// when nothing.
func (b *tailBuffer) tail() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for i := range b.count {
		out = append(out, b.lines[(b.next-b.count+i+tailLines)%tailLines])
	}
	if b.cur.Len() > 0 || b.cut > 0 {
		line := b.cur.String()
		if b.cut > 0 {
			line += fmt.Sprintf(" … [%d more bytes of this line not kept]", b.cut)
		}
		out = append(out, line)
	}
	if len(out) > tailLines {
		out = out[len(out)-tailLines:]
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// cappedLog writes to w until limit bytes have been written, then drops
// the rest, after a note saying where it was cut; Close notes how much was
// dropped.
type cappedLog struct {
	mu      sync.Mutex
	w       io.WriteCloser
	limit   int64
	written int64
	dropped int64
	noted   bool
}

// Write never fails: a log file that cannot be written must not stop the
// webhook, whose output still reaches the tail kept in memory.
func (c *cappedLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := int64(len(p))
	if c.written+n <= c.limit {
		_, _ = c.w.Write(p)
		c.written += n
		return len(p), nil
	}
	room := c.limit - c.written
	if room > 0 {
		_, _ = c.w.Write(p[:room])
		c.written += room
	}
	if !c.noted {
		c.noted = true
		_, _ = fmt.Fprintf(c.w, "\n[presetsim: webhook.log is cut here, at %d bytes; what the webhook writes after this is not kept]\n", c.limit)
	}
	c.dropped += n - room
	return len(p), nil
}

// Close writes how much was dropped, if anything, and closes the file.
func (c *cappedLog) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dropped > 0 {
		_, _ = fmt.Fprintf(c.w, "[presetsim: %d bytes the webhook wrote after the cut were not kept]\n", c.dropped)
	}
	return c.w.Close()
}
