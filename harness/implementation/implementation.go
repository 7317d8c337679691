package implementation

import (
	"context"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
)

// Implementation is the implementation of PodPreset under test.
type Implementation interface {
	// Name names it in reports: a module's name, a webhook's URL, ...
	Name() string
	// Install makes it admit the pods created in the target's namespaces.
	// On error, what it installed is undone by Stop.
	Install(ctx context.Context, t Target) error
	// WaitForPreset returns once a pod created next in namespace would be
	// admitted with the preset at resourceVersion (or later), as far as
	// the implementation can tell.
	WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error
	// CRD says whose CRD serves its presets.
	CRD() CRDSource
	// Stop undoes Install and stops what it started; it is called once,
	// before the cluster stops.
	Stop() error
}

// Forgetter is the ability of an implementation that applies a deleted
// preset for a while after (the policy: until its controller has removed
// the preset from the namespace's compiled policy): WaitForgotten returns
// once it has none of namespace's presets left that the cluster no longer
// holds, as far as it can tell. presetsim fuzz calls it before a namespace
// serves another case.
type Forgetter interface {
	WaitForgotten(ctx context.Context, namespace string) error
}

// CRDSource says whose CRD serves an implementation's presets.
type CRDSource int

const (
	// HarnessCRD: the harness installed it (the profile's spec.crd, or the
	// reference CRD when the profile names none).
	HarnessCRD CRDSource = iota
	// ReferenceCRD: the harness installed the reference CRD, and it is the
	// implementation's own API (an in-process module reads it).
	ReferenceCRD
	// OwnCRD: the implementation brought its own.
	OwnCRD
)

// Target is where an implementation installs itself.
type Target struct {
	// Cluster is the started backend; its abilities (backend.APIServer,
	// backend.WebhookHost, backend.InProcessAdmission) say how to reach it.
	Cluster backend.Cluster
	// Backend is the backend's name, for messages.
	Backend string
	// RunID names the run (the webhook registration is named after it).
	RunID string
	// Namespaces selects the namespaces to admit pods in; every namespace
	// when nil.
	Namespaces *metav1.LabelSelector
	// Profile describes the implementation (its preset kind and CRD).
	Profile *profile.Profile
	// Progress receives one line per phase.
	Progress io.Writer
	// Wait bounds the implementation's own waits.
	Wait time.Duration
	// KeepDir records a temporary directory the implementation made, so
	// that the next run removes it if this one is killed (backend.KeepDir).
	KeepDir func(dir string) error
	// Unsubscribed is what becomes of what the implementation does with
	// the requests its registration does not send it, which the harness
	// sends it besides where it can see the answers (backend.Findings).
	Unsubscribed backend.Unsubscribed
}

// Process is the ability of an implementation that runs as a process the
// harness started: its state and output explain a failure.
type Process interface {
	// ProcessState says that the process has exited and how, as a
	// message suffix ("; its process exited (...)"); "" while it runs.
	ProcessState() string
	// LastOutput is the process's last lines and where all of it is kept.
	LastOutput() string
	// RefusedGrace is how long it may refuse connections at start-up.
	RefusedGrace() time.Duration
	// Dial connects to where the API server reaches it and hangs up: nil
	// once it accepts connections. What tells that it is up when no probe
	// pod can (its registration leaves the run's pods out).
	Dial(ctx context.Context) error
}

// Preflight is the ability of an implementation that cannot run on some
// backends: it says so before the backend starts.
type Preflight interface {
	Preflight(b backend.Backend) error
}

// Answers is the ability of an implementation whose admission requests
// the harness sees: FailedRequests are the requests in a namespace that got
// no valid answer (no answer, an error status, no AdmissionReview
// answering the request, a patch that does not apply), as sentences, which
// fail R5.3 whatever the failure policy then did; none when the harness
// cannot see them (a webhook it cannot stand in front of).
type Answers interface {
	FailedRequests(namespace string) []string
}

// Deliveries is the ability of an implementation whose admission requests
// the harness sees: PodCreateSent is how many times the API server sent it
// the CREATE (dry run or not) of the pod namespace/name, which R5.4 asks of
// every pod (a pod created again under its name is sent again); known is
// false when the harness cannot tell (a webhook it cannot stand in front
// of, a pod without a name). PodCreatesSent counts the pod creations of a
// namespace it was sent, a controller's nameless ones included.
// RegistrationFindings are what its own registration was found to do
// against R5.4 before the run (none under the harness's registration).
type Deliveries interface {
	PodCreateSent(namespace, name string) (times int, known bool)
	PodCreatesSent(namespace string) (n int, known bool)
	RegistrationFindings() []string
}

// Profiled is the ability of an implementation that is tested with a
// profile of its own when the run names none (the policy: it declares
// what a MutatingAdmissionPolicy cannot do, profiles/policy.yaml).
type Profiled interface {
	Profile() (*profile.Profile, error)
}

// ProcessOf returns the implementation's process ability, or nil.
func ProcessOf(impl Implementation) Process {
	if p, ok := impl.(Process); ok {
		return p
	}
	return nil
}
