package app

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	externalimpl "presetsim.dev/presetsim/internal/implementation/external"
)

// external are the flags that describe an external webhook.
type external struct {
	url, caFile, versions, failurePolicy, command string
	timeout                                       time.Duration
}

func externalFlags(fs *pflag.FlagSet) *external {
	e := &external{}
	fs.StringVar(&e.url, "webhook-url", "", "test this external webhook (https URL) instead of an in-process module")
	fs.StringVar(&e.caFile, "webhook-ca", "", "CA bundle (PEM file) that verifies the external webhook")
	fs.StringVar(&e.versions, "webhook-versions", "v1", "admissionReviewVersions the external webhook accepts, comma-separated")
	fs.DurationVar(&e.timeout, "webhook-timeout", 10*time.Second, "how long the API server waits for the external webhook (1s to 30s)")
	fs.StringVar(&e.failurePolicy, "webhook-failure-policy", "Fail", "Fail or Ignore")
	fs.StringVar(&e.command, "webhook-command", "", "command that starts the external webhook once the API server is up; "+
		externalimpl.KubeconfigPlaceholder+" is replaced by a kubeconfig for it; shell-style quoting, and NAME=value words first set its environment (LOG=debug ./hook --port 9443)")
	return e
}

// module returns the external module the flags describe, nil when none.
func (e *external) module() (*externalimpl.Options, error) {
	if e.url == "" {
		if e.caFile != "" || e.command != "" {
			return nil, errors.New("--webhook-ca and --webhook-command need --webhook-url")
		}
		return nil, nil
	}
	if e.caFile == "" {
		return nil, errors.New("--webhook-url needs --webhook-ca")
	}
	ca, err := os.ReadFile(e.caFile)
	if err != nil {
		return nil, fmt.Errorf("--webhook-ca: %w", err)
	}
	if e.failurePolicy != "Fail" && e.failurePolicy != "Ignore" {
		return nil, fmt.Errorf("--webhook-failure-policy must be Fail or Ignore, not %q", e.failurePolicy)
	}
	if e.timeout < time.Second || e.timeout > 30*time.Second {
		return nil, fmt.Errorf("--webhook-timeout must be between 1s and 30s, not %s", e.timeout)
	}
	m := &externalimpl.Options{
		URL: e.url, CABundle: ca, FailurePolicy: e.failurePolicy,
		TimeoutSeconds: int32(e.timeout / time.Second), AdmissionReviewVersions: strings.Split(e.versions, ","),
	}
	if e.command != "" {
		if m.Env, m.Command, err = externalimpl.ParseCommand(e.command); err != nil {
			return nil, fmt.Errorf("--webhook-command: %w", err)
		}
	}
	return m, nil
}
