package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/mutants"
	"presetsim.dev/presetsim/internal/webhook"
)

// NewCommand is "presetsim serve": it runs an in-process module (the
// reference by default) as a standalone webhook server, so that a cluster,
// or the harness as an external module, can call it out of process.
func NewCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve --kubeconfig FILE [flags]",
		Short: "serve a module as a standalone TLS webhook (loopback by default)",
		Long: `Serves an in-process module (the reference by default) as a webhook at /mutate-pods, with
/healthz, reading PodPresets from and recording events in the API server of --kubeconfig. It
serves until Ctrl-C, and ends with an error if its listener fails.`,
		Example: `  presetsim serve --kubeconfig kc --ca-out ca.pem
  presetsim serve --kubeconfig kc --addr 0.0.0.0:8443 --cert tls.crt --key tls.key`,
		Args: cli.NoArgs,
	}
	fs := cmd.Flags()
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the API server whose PodPresets to read and where to record events (required)")
	addr := fs.String("addr", "127.0.0.1:8443", "address to listen on; loopback unless told otherwise")
	certFile := fs.String("cert", "", "serving certificate (PEM); with --key")
	keyFile := fs.String("key", "", "serving key (PEM); with --cert")
	caOut := fs.String("ca-out", "", "without --cert/--key: make a CA and a certificate for the --addr host, and write the CA bundle here")
	name := fs.String("module", module.Reference, "in-process admission module to serve")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		if *kubeconfig == "" || len(args) > 0 || (*certFile == "") != (*keyFile == "") || (*certFile == "" && *caOut == "") {
			fmt.Fprintln(stderr, "usage: presetsim serve --kubeconfig FILE [--addr HOST:PORT] (--cert FILE --key FILE | --ca-out FILE) [--module NAME]")
			return cli.ExitError{Code: 2}
		}
		cert, err := servingCertificate(*addr, *certFile, *keyFile, *caOut)
		if err != nil {
			return err
		}
		clients, err := cli.Connect(*kubeconfig)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		mod, err := mutants.Registry().Start(ctx, *name, module.Deps{Client: clients.Typed, Dynamic: clients.Dynamic})
		if err != nil {
			return fmt.Errorf("unable to start module %q: %w", *name, err)
		}
		defer mod.Stop()
		mux := http.NewServeMux()
		mux.Handle("/mutate-pods", webhook.NewHandler(mod.Plugin, manifest.Scheme()))
		mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
		srv, err := webhook.ServeOn(*addr, mux, cert)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "serving module %q on %s/mutate-pods (health: %s/healthz) until Ctrl-C\n", *name, srv.URL, srv.URL)
		select {
		case <-ctx.Done():
		case <-srv.Done():
			return fmt.Errorf("the webhook stopped serving: %w", srv.Err())
		}
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Stop(shutdown); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		fmt.Fprintln(stderr, "stopped")
		return nil
	}
	return cmd
}

// servingCertificate loads --cert/--key or makes a CA and a certificate for
// the host of addr, writing the CA bundle to caOut (0600).
func servingCertificate(addr, certFile, keyFile, caOut string) (tls.Certificate, error) {
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("unable to load the serving certificate: %w", err)
		}
		return cert, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("--addr %q: %w", addr, err)
	}
	certs, err := webhook.NewCertificates(host)
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(caOut, certs.CABundle, 0o600); err != nil {
		return tls.Certificate{}, fmt.Errorf("unable to write the CA bundle: %w", err)
	}
	return certs.Serving, nil
}
