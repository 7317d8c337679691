package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"presetsim.dev/presetsim/internal/scenario"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/backend/cluster"
	"presetsim.dev/presetsim/internal/backend/envtest"
	externalimpl "presetsim.dev/presetsim/internal/implementation/external"
	"presetsim.dev/presetsim/internal/implementation/installed"
	"presetsim.dev/presetsim/internal/implementation/module"
	policyimpl "presetsim.dev/presetsim/internal/implementation/policy"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/internal/mutants"
)

// target are the flags that say what is tested and where, shared by run
// and fuzz: the implementation (module, policy, external webhook or what
// is installed), the backend, the profile, the settle window and the
// report folder.
type target struct {
	fs                                *pflag.FlagSet
	moduleName, implName, backendName *string
	profilePath, reportDir            *string
	settle                            *time.Duration
	showSecrets                       *bool
	ext                               *external
	constructors                      map[string]func() (backend.Backend, error)
	backendNames                      []string
}

func targetFlags(fs *pflag.FlagSet) *target {
	t := &target{fs: fs, constructors: map[string]func() (backend.Backend, error){}}
	t.moduleName = fs.String("module", module.Reference, "in-process admission module to test")
	t.implName = fs.String("implementation", "", "what implements PodPreset, when not a module, a webhook (--webhook-url) or what is installed (--kubeconfig): "+
		policyimpl.Name+" (the presets compiled into MutatingAdmissionPolicies, no webhook; profile profiles/policy.yaml unless --profile)")
	registry := harness.Backends()
	var summaries []string
	for _, reg := range registry {
		summaries = append(summaries, fmt.Sprintf("%s (%s)", reg.Name, reg.Summary))
		t.constructors[reg.Name] = reg.Flags(fs)
	}
	t.backendNames = registry.Names()
	t.backendName = fs.String("backend", t.backendNames[0], "where objects live: "+strings.Join(summaries, ", "))
	t.settle = fs.Duration("settle", 0, "how long a check that something does not happen watches (no events, stays as submitted); the backend's default when 0: 1s with an API server, 200ms offline. A step may end with \"for 5s\" for its own")
	t.showSecrets = fs.Bool("show-secrets", false, "show values that come from Secrets in messages, instead of "+scenario.Mask)
	t.ext = externalFlags(fs)
	t.profilePath = fs.String("profile", "", "profile (YAML) of the implementation under test; the canonical PodPreset when empty")
	t.reportDir = fs.String("report-dir", "", "write the reports here")
	return t
}

// started is a World up for a command, with what it was made of.
type started struct {
	world      *harness.World
	impl       implementation.Implementation
	profile    *profile.Profile
	external   *externalimpl.Options
	interrupts *interrupt.Interrupts
	began      time.Time
}

// stop stops the World and releases the signals.
func (s *started) stop(stderr io.Writer) {
	if err := s.world.Stop(); err != nil {
		fmt.Fprintf(stderr, "error while stopping the control plane: %v\n", err)
	}
	s.interrupts.Release()
}

// implementationName is the implementation as reports name it: the
// profile's implementation and version, then what ran.
func (s *started) implementationName() string {
	name := s.impl.Name()
	if s.profile != nil && s.profile.Spec.Implementation != "" {
		name = fmt.Sprintf("%s %s (%s)", s.profile.Spec.Implementation, s.profile.Spec.Version, name)
	}
	return name
}

// start checks the flags (a usage error exits 2 before anything starts),
// then starts the backend and the implementation. The caller stops what
// it returns.
func (t *target) start(ctx context.Context, cmd *cobra.Command, stderr io.Writer) (*started, error) {
	name := cmd.Name()
	external, err := t.ext.module()
	if err != nil {
		fmt.Fprintf(stderr, "presetsim %s: %v\n", name, err)
		return nil, cli.ExitError{Code: 2}
	}
	if *t.settle < 0 {
		return nil, cli.UsageError(cmd, fmt.Sprintf("--settle must not be negative, not %s", *t.settle))
	}
	if t.fs.Changed("kubeconfig") {
		*t.backendName = cluster.Name
	}
	newBackend, ok := t.constructors[*t.backendName]
	if !ok {
		fmt.Fprintf(stderr, "presetsim %s: unknown backend %q (known: %s)\n", name, *t.backendName, strings.Join(t.backendNames, ", "))
		return nil, cli.ExitError{Code: 2}
	}
	switch {
	case *t.implName != "" && *t.implName != policyimpl.Name:
		fmt.Fprintf(stderr, "presetsim %s: unknown implementation %q (known: %s)\n", name, *t.implName, policyimpl.Name)
		return nil, cli.ExitError{Code: 2}
	case *t.implName != "" && (external != nil || t.fs.Changed("module")):
		fmt.Fprintf(stderr, "presetsim %s: --implementation %s cannot be combined with --module or --webhook-url\n", name, *t.implName)
		return nil, cli.ExitError{Code: 2}
	}
	var prof *profile.Profile
	if *t.profilePath != "" {
		if prof, err = profile.Load(*t.profilePath); err != nil {
			fmt.Fprintf(stderr, "presetsim %s: %v\n", name, err)
			return nil, cli.ExitError{Code: 2}
		}
	} else if *t.implName == policyimpl.Name {
		if prof, err = shippedProfile("policy.yaml"); err != nil {
			return nil, err
		}
	}
	if *t.reportDir != "" {
		if err := os.MkdirAll(*t.reportDir, 0o755); err != nil {
			return nil, err
		}
		if external != nil && len(external.Command) > 0 {
			external.LogFile = filepath.Join(*t.reportDir, "webhook.log")
		}
	}

	s := &started{profile: prof, external: external, began: time.Now(), interrupts: interrupt.Catch(ctx)}
	ctx = s.interrupts.Context()
	// The envtest backend gets the binaries the command found or built;
	// the others are made from their own flags.
	var be backend.Backend
	if *t.backendName == envtest.Name {
		bin, err := cli.Binaries(ctx, stderr)
		if err != nil {
			s.interrupts.Release()
			return nil, err
		}
		be = envtest.New(envtest.Options{BinDir: bin})
	} else if be, err = newBackend(); err != nil {
		s.interrupts.Release()
		return nil, err
	}
	switch {
	case *t.implName == policyimpl.Name:
		s.impl = policyimpl.New(policyimpl.Options{})
	case external != nil:
		s.impl = externalimpl.New(*external)
	case *t.backendName == cluster.Name:
		s.impl = installed.New()
	default:
		if s.impl, err = module.Implementation(mutants.Registry(), *t.moduleName); err != nil {
			s.interrupts.Release()
			fmt.Fprintf(stderr, "presetsim %s: %v\n", name, err)
			return nil, cli.ExitError{Code: 2}
		}
	}
	s.world, err = harness.Start(ctx, harness.Options{Backend: be, Implementation: s.impl, Profile: prof, ShowSecrets: *t.showSecrets, Progress: stderr,
		Timeouts: harness.Timeouts{Settle: *t.settle}})
	if err != nil {
		code := s.interrupts.Code()
		s.interrupts.Release()
		if code != 0 {
			return nil, cli.ExitError{Code: code}
		}
		return nil, err
	}
	s.interrupts.OnSignal(s.world.Stop)
	return s, nil
}
