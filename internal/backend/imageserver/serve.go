package imageserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Mirror is an image served as a registry until Stop.
type Mirror struct {
	// URL is the registry's base URL, e.g. http://172.18.0.1:40123.
	URL string

	srv  *http.Server
	done chan struct{} // closed when serving has ended
	err  error         // why serving ended; read after done is closed
}

// Serve serves img on ln over plain HTTP (kind's containerd pulls from a
// mirror on the kind network) until Stop.
func Serve(ln net.Listener, img Image) *Mirror {
	m := &Mirror{URL: "http://" + ln.Addr().String(), done: make(chan struct{}),
		srv: &http.Server{Handler: Handler(img), ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		if err := m.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			m.err = err
		}
		close(m.done)
	}()
	return m
}

// Stop shuts the mirror down, waiting for pulls in flight until ctx ends,
// and returns why serving ended if it ended on its own. It may be called
// more than once.
func (m *Mirror) Stop(ctx context.Context) error {
	err := m.srv.Shutdown(ctx)
	if err != nil {
		_ = m.srv.Close()
	}
	<-m.done
	if m.err != nil {
		return m.err
	}
	return err
}
