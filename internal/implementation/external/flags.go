package external

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"presetsim.dev/presetsim/harness/implementation"
)

// Name is "webhook".
const Name = "webhook"

// Registration registers the kind with its flags (--webhook-url and the
// rest); setting any of them chooses it.
func Registration() implementation.Registration {
	return implementation.Registration{
		Name:    Name,
		Summary: "an external webhook, --webhook-url",
		Flags: func(fs *pflag.FlagSet) func(implementation.Env) (implementation.Implementation, error) {
			f := bindFlags(fs)
			return func(env implementation.Env) (implementation.Implementation, error) {
				opts, err := f.options()
				if err != nil {
					return nil, err
				}
				if env.ReportDir != "" && len(opts.Command) > 0 {
					opts.LogFile = filepath.Join(env.ReportDir, LogFile)
				}
				return New(opts), nil
			}
		},
	}
}

// LogFile is the file in the report folder that receives the output of
// the webhook's command.
const LogFile = "webhook.log"

// flags are the flags that describe an external webhook.
type flags struct {
	url, caFile, versions, failurePolicy, command, kubeconfigOut, registration string
	timeout                                                                    time.Duration
	fs                                                                         *pflag.FlagSet
}

func bindFlags(fs *pflag.FlagSet) *flags {
	f := &flags{fs: fs}
	fs.StringVar(&f.registration, "webhook-configuration", "", "the webhook's own MutatingWebhookConfiguration as it ships (YAML; a bundle of manifests is fine): registered as is, with only its clientConfig pointed at --webhook-url and its namespaceSelector narrowed to the run's namespaces; its failure policy, timeout and review versions replace the --webhook-* flags'")
	fs.StringVar(&f.url, "webhook-url", "", "test this external webhook (https URL) instead of an in-process module")
	fs.StringVar(&f.caFile, "webhook-ca", "", "CA bundle (PEM file) that verifies the external webhook; with --webhook-command and no --webhook-ca, the run issues the webhook a serving certificate ("+CertPlaceholder+", "+KeyPlaceholder+", "+CAPlaceholder+" in the command)")
	fs.StringVar(&f.versions, "webhook-versions", "v1", "admissionReviewVersions the external webhook accepts, comma-separated")
	fs.DurationVar(&f.timeout, "webhook-timeout", 10*time.Second, "how long the API server waits for the external webhook (1s to 30s)")
	fs.StringVar(&f.failurePolicy, "webhook-failure-policy", "Fail", "Fail or Ignore")
	fs.StringVar(&f.command, "webhook-command", "", "command that starts the external webhook once the API server is up; "+
		KubeconfigPlaceholder+" is replaced by a kubeconfig for it, and without --webhook-ca "+CertPlaceholder+" and "+KeyPlaceholder+" by a serving certificate and key the run issued; shell-style quoting, and NAME=value words first set its environment (LOG=debug ./hook --port 9443)")
	fs.StringVar(&f.kubeconfigOut, "webhook-kubeconfig-out", "", "write the kubeconfig for a webhook started outside the run (on the host of the container the run is in) to this file once the API server is up, and wait up to "+OutsideGrace.String()+" for the webhook; removed when the run ends")
	return f
}

// options checks the flags and returns the webhook they describe.
func (f *flags) options() (Options, error) {
	if f.url == "" {
		return Options{}, errors.New("an external webhook needs --webhook-url (and --webhook-ca, or a --webhook-command given a certificate)")
	}
	if u, err := url.Parse(f.url); err != nil || u.Scheme != "https" || u.Host == "" {
		return Options{}, fmt.Errorf("--webhook-url must be an https:// URL with a host (an API server calls webhooks over TLS only), not %q", f.url)
	}
	if f.caFile == "" && f.command == "" {
		return Options{}, errors.New("--webhook-url needs --webhook-ca, or a --webhook-command that serves the certificate the run issues (" + CertPlaceholder + ", " + KeyPlaceholder + ")")
	}
	var ca []byte
	var err error
	if f.caFile != "" {
		if ca, err = os.ReadFile(f.caFile); err != nil {
			return Options{}, fmt.Errorf("--webhook-ca: %w", err)
		}
		if err := certificates(ca); err != nil {
			return Options{}, fmt.Errorf("--webhook-ca %s: %w", f.caFile, err)
		}
	}
	if f.failurePolicy != "Fail" && f.failurePolicy != "Ignore" {
		return Options{}, fmt.Errorf("--webhook-failure-policy must be Fail or Ignore, not %q", f.failurePolicy)
	}
	if f.timeout < time.Second || f.timeout > 30*time.Second {
		return Options{}, fmt.Errorf("--webhook-timeout must be between 1s and 30s, not %s", f.timeout)
	}
	var reg *admissionregistrationv1.MutatingWebhookConfiguration
	if f.registration != "" {
		for _, name := range []string{"webhook-failure-policy", "webhook-timeout", "webhook-versions"} {
			if f.fs != nil && f.fs.Changed(name) {
				return Options{}, fmt.Errorf("--%s and --webhook-configuration: the registration as it ships says that", name)
			}
		}
		if reg, err = ReadRegistration(f.registration); err != nil {
			return Options{}, fmt.Errorf("--webhook-configuration: %w", err)
		}
	}
	o := Options{
		Registration: reg,
		URL:          f.url, CABundle: ca, FailurePolicy: f.failurePolicy,
		TimeoutSeconds: int32(f.timeout / time.Second), AdmissionReviewVersions: strings.Split(f.versions, ","),
		KubeconfigOut: f.kubeconfigOut,
	}
	if f.command != "" {
		if o.Env, o.Command, err = ParseCommand(f.command); err != nil {
			return Options{}, fmt.Errorf("--webhook-command: %w", err)
		}
	}
	return o, nil
}

// certificates checks that a CA bundle holds PEM certificates and nothing
// else a person could give by mistake (a key, a request).
func certificates(bundle []byte) error {
	n := 0
	for rest := bundle; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("holds a %s, not a CA certificate: give the certificate of the CA that signed the webhook's", block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("a certificate that does not parse: %w", err)
		}
		n++
	}
	if n == 0 {
		return errors.New("holds no PEM certificate")
	}
	return nil
}
