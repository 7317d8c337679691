package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server serves webhook handlers over TLS until Stop, and keeps why serving
// ended.
type Server struct {
	// URL is the base URL, e.g. https://127.0.0.1:40123.
	URL string
	// CABundle is the PEM CA that signed the serving certificate.
	CABundle []byte

	srv      *http.Server
	conns    conns
	done     chan struct{} // closed when serving has ended
	serveErr error         // why serving ended; read after done is closed
}

// Serve starts serving mux on host (an IP address; 127.0.0.1 keeps it on
// loopback) at a free port, with a certificate for that host from a new CA.
func Serve(host string, mux http.Handler) (*Server, error) {
	certs, err := NewCertificates(host)
	if err != nil {
		return nil, err
	}
	s, err := ServeOn(net.JoinHostPort(host, "0"), mux, certs.Serving)
	if err != nil {
		return nil, err
	}
	s.CABundle = certs.CABundle
	return s, nil
}

// ServeOn starts serving mux over TLS 1.2+ on addr (host:port) with the
// given certificate. CABundle is left empty: the caller knows the CA.
func ServeOn(addr string, mux http.Handler, cert tls.Certificate) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("unable to listen for the webhook: %w", err)
	}
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{
			MinVersion:   tls.VersionTLS12,
			Certificates: []tls.Certificate{cert},
		},
	}
	return start("https://"+ln.Addr().String(), srv, func() error { return srv.ServeTLS(ln, "", "") }), nil
}

// start runs serve in a goroutine that Stop waits for, keeping its error.
func start(url string, srv *http.Server, serve func() error) *Server {
	s := &Server{URL: url, srv: srv, done: make(chan struct{})}
	srv.ConnState = s.conns.track
	go func() {
		if err := serve(); !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
		close(s.done)
	}()
	return s
}

// Done is closed when serving has ended, by Stop or because the listener
// failed; Err then says why.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is why serving ended on its own: nil while serving and after Stop.
func (s *Server) Err() error {
	select {
	case <-s.done:
		return s.serveErr
	default:
		return nil
	}
}

// Stop shuts the server down, waiting for requests in flight until ctx ends;
// once none is in flight it closes every connection (conns). It may be
// called more than once.
func (s *Server) Stop(ctx context.Context) error {
	shut := make(chan error, 1)
	go func() { shut <- s.srv.Shutdown(ctx) }()
	tick := time.NewTicker(stopPoll)
	defer tick.Stop()
	var err error
wait:
	for {
		select {
		case err = <-shut:
			break wait
		case <-tick.C:
			if s.conns.idle() {
				_ = s.srv.Close()
				err = <-shut
				break wait
			}
		}
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = s.srv.Close()
	} else {
		err = nil
	}
	<-s.done
	if s.serveErr != nil {
		return s.serveErr
	}
	return err
}

// stopPoll is how often Stop looks whether requests are still in flight.
const stopPoll = 5 * time.Millisecond
