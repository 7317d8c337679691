package app

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"presetsim.dev/presetsim"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/implementation"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/app/cli"
	"presetsim.dev/presetsim/internal/interrupt"
	"presetsim.dev/presetsim/internal/registry"
	"presetsim.dev/presetsim/internal/scenario"
)

// target are the flags that say what is tested and where, shared by run
// and fuzz: the implementation and the backend (each registration's own
// flags, registry.Choice), the profile, the wait and settle windows and
// the report folder.
type target struct {
	choice                 *registry.Choice
	profilePath, reportDir *string
	wait, settle           *time.Duration
	showSecrets            *bool
	unsubscribed           *string
	// timeout, when not zero, bounds the whole command, the control
	// plane's start included: then it stops as an interrupt does.
	timeout time.Duration
}

func targetFlags(fs *pflag.FlagSet) *target {
	t := &target{choice: registry.BindFlags(fs)}
	t.wait = fs.Duration("wait", 0, "how long a check waits for what must happen (a pod admitted, a workload's pods made and finished, an event); the backend's default when 0: 30s. A cluster whose nodes are slow to start pods needs more")
	t.settle = fs.Duration("settle", 0, "how long a check that something does not happen watches (no events, stays as submitted); the backend's default when 0: 1s with an API server, 200ms offline. A step may end with \"for 5s\" for its own")
	t.showSecrets = fs.Bool("show-secrets", false, "show values that come from Secrets in messages, instead of "+scenario.Mask)
	t.profilePath = fs.String("profile", "", "profile (YAML) of the implementation under test: a file, or the name of a shipped one (policy, redhat-cop-podpreset-webhook, kubeflow-poddefault, …); the canonical PodPreset, or the implementation kind's own, when empty")
	t.reportDir = fs.String("report-dir", "", "write the reports here")
	t.unsubscribed = fs.String("unsubscribed", string(backend.UnsubscribedReport), "what the implementation does with requests its registration does not send it (pod UPDATEs, ephemeral containers, workloads; the harness sends them where it can keep the answer from the API server): report, a finding that fails nothing, as in a cluster such a request never reaches it; or fail, judged as if its registration sent them (R2.1, R3.2, R2.6)")
	return t
}

// started is a World up for a command, with what it was made of.
type started struct {
	world      *harness.World
	impl       implementation.Implementation
	profile    *profile.Profile
	interrupts *interrupt.Interrupts
	began      time.Time
	stopped    *stopped // once stop ran
	// unlog ends the libraries' log in the report folder, if one is kept.
	unlog func()
}

// stopped is what stop took and returned.
type stopped struct {
	took time.Duration
	err  error
}

// stop stops the World (on an existing cluster: deletes what the run
// created and waits until it is gone), says how long that took, and
// releases the signals; it returns how long it took and what it could not
// do. Stopping again returns the same, and does nothing.
func (s *started) stop(stderr io.Writer) (time.Duration, error) {
	if s.stopped != nil {
		return s.stopped.took, s.stopped.err
	}
	began := time.Now()
	err := s.world.Stop()
	if err != nil {
		fmt.Fprintf(stderr, "error while stopping the control plane: %v\n", err)
	}
	s.stopped = &stopped{took: time.Since(began), err: err}
	fmt.Fprintf(stderr, "clean-up and stop:   %s\n", s.stopped.took.Round(time.Millisecond))
	s.interrupts.Release()
	if s.unlog != nil {
		s.unlog()
	}
	return s.stopped.took, err
}

// cleanUpExit is the exit of a command whose own work passed: status 1
// when its clean-up failed (stop said what it could not do), for a run
// that left something behind on a cluster is not a pass; none otherwise.
func cleanUpExit(stopErr error) error {
	if stopErr != nil {
		return cli.ExitError{Code: 1}
	}
	return nil
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
// then starts the backend and the implementation they choose. The caller
// stops what it returns.
func (t *target) start(ctx context.Context, cmd *cobra.Command, stderr io.Writer) (*started, error) {
	if *t.settle < 0 {
		return nil, cli.UsageError(cmd, fmt.Sprintf("--settle must not be negative, not %s", *t.settle))
	}
	if *t.wait < 0 {
		return nil, cli.UsageError(cmd, fmt.Sprintf("--wait must not be negative, not %s", *t.wait))
	}
	if u := backend.Unsubscribed(*t.unsubscribed); u != backend.UnsubscribedReport && u != backend.UnsubscribedFail {
		return nil, cli.UsageError(cmd, fmt.Sprintf("--unsubscribed must be %s or %s, not %q", backend.UnsubscribedReport, backend.UnsubscribedFail, *t.unsubscribed))
	}
	if *t.reportDir != "" {
		if err := os.MkdirAll(*t.reportDir, 0o755); err != nil {
			return nil, err
		}
	}
	chosen, err := t.choice.Resolve(implementation.Env{ReportDir: *t.reportDir})
	if err != nil {
		fmt.Fprintf(stderr, "presetsim %s: %v\n", cmd.Name(), err)
		return nil, cli.ExitError{Code: 2}
	}
	prof := chosen.Profile
	if *t.profilePath != "" {
		if prof, err = loadProfile(*t.profilePath); err != nil {
			fmt.Fprintf(stderr, "presetsim %s: %v\n", cmd.Name(), err)
			return nil, cli.ExitError{Code: 2}
		}
	}
	s := &started{impl: chosen.Implementation, profile: prof, began: time.Now()}
	if *t.reportDir != "" {
		if s.unlog, err = libraryLog.keepIn(filepath.Join(*t.reportDir, "libraries.log")); err != nil {
			return nil, err
		}
	}
	s.interrupts = interrupt.Catch(ctx)
	s.interrupts.After(t.timeout)
	ctx = s.interrupts.Context()
	be := chosen.Backend
	s.world, err = harness.Start(ctx, harness.Options{Backend: be, Leftovers: registry.Backends(), Implementation: s.impl, Profile: prof, ShowSecrets: *t.showSecrets, Progress: stderr,
		Timeouts: harness.Timeouts{Wait: *t.wait, Settle: *t.settle}, Unsubscribed: backend.Unsubscribed(*t.unsubscribed)})
	if err != nil {
		code := s.interrupts.Code()
		s.interrupts.Release()
		if s.unlog != nil {
			s.unlog() // the libraries' lines of a start that failed stay there
		}
		if code != 0 {
			return nil, cli.ExitError{Code: code}
		}
		return nil, err
	}
	s.interrupts.OnSignal(s.world.Stop)
	return s, nil
}

// loadProfile reads a profile file or, when no file has that name, the
// shipped profile of that name (policy or policy.yaml): a binary run from
// an image or another directory has the shipped profiles but not their files.
func loadProfile(name string) (*profile.Profile, error) {
	if fi, err := os.Stat(name); (err == nil && !fi.IsDir()) || strings.ContainsRune(name, os.PathSeparator) {
		return profile.Load(name)
	}
	file := strings.TrimSuffix(name, ".yaml") + ".yaml"
	if _, err := fs.Stat(presetsim.Profiles, "profiles/"+file); err != nil {
		return nil, fmt.Errorf("--profile %s: no such file, and no shipped profile of that name (%s)", name, strings.Join(shippedProfiles(), ", "))
	}
	return profile.Shipped(file)
}

// shippedProfiles lists the names of the shipped profiles.
func shippedProfiles() []string {
	files, _ := fs.Glob(presetsim.Profiles, "profiles/*.yaml")
	for i, f := range files {
		files[i] = strings.TrimSuffix(path.Base(f), ".yaml")
	}
	return files
}
