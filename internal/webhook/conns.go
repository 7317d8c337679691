package webhook

import (
	"net"
	"net/http"
	"sync"
)

// conns follows the server's connections (http.Server.ConnState) to tell
// whether any has a request in flight.
//
// http.Server.Shutdown waits until every connection is idle, but counts a
// connection that has not sent a request yet as busy for its first five
// seconds, and an HTTP/2 connection as busy until the client closes it
// after the server's GOAWAY: a run's stop waited 1.1 s for the API
// server's connection to the reference webhook (4.3 s over HTTP/1.1), with
// nothing in flight. Stop closes them all as soon as none is active; a
// connection still opening (no request read yet) is closed too, as its
// client would find the server gone a moment later anyway.
type conns struct {
	mu     sync.Mutex
	active map[net.Conn]struct{}
}

// track is the server's ConnState hook: a connection is active from the
// first byte of a request (HTTP/1) or while a stream is open (HTTP/2) until
// it is idle again, hijacked or closed.
func (c *conns) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if state == http.StateActive {
		if c.active == nil {
			c.active = make(map[net.Conn]struct{})
		}
		c.active[conn] = struct{}{}
		return
	}
	delete(c.active, conn)
}

// idle is true when no connection has a request in flight.
func (c *conns) idle() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.active) == 0
}
