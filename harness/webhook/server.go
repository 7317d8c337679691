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

// Server serves webhook handlers over TLS.
type Server struct {
	// URL is the base URL, e.g. https://127.0.0.1:40123.
	URL string
	// CABundle is the PEM CA that signed the serving certificate.
	CABundle []byte

	srv      *http.Server
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
	s := &Server{URL: "https://" + ln.Addr().String(), srv: srv, done: make(chan struct{})}
	go func() {
		err := srv.ServeTLS(ln, "", "")
		if !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
		close(s.done)
	}()
	return s, nil
}

// Stop shuts the server down, waiting for requests in flight until ctx ends.
// It may be called more than once.
func (s *Server) Stop(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	<-s.done
	if s.serveErr != nil {
		return s.serveErr
	}
	return err
}
