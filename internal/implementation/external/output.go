package external

import (
	"fmt"
	"io"
	"sync"
)

// maxLogBytes is the most written to the log file (webhook.log); a note
// in it says where it was cut and how much more came.
const maxLogBytes = 64 << 20

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
