package backend

import (
	"context"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/outcome"
)

// Backend starts the cluster a run's objects live in.
type Backend interface {
	// Name is the backend's registered name ("envtest", "offline", ...),
	// used in reports and in UnsupportedError.
	Name() string
	// Start starts (or connects to) the cluster. On error, everything it
	// started is stopped again.
	Start(ctx context.Context, run Run) (Cluster, error)
}

// Run is what a backend learns about the run that starts it.
type Run struct {
	// ID names the run; the harness labels the run's namespaces with it.
	ID string
	// Scheme knows every kind a feature file may write.
	Scheme *runtime.Scheme
	// Profile describes the implementation under test (its preset kind).
	Profile *profile.Profile
	// Progress receives one line per start-up phase.
	Progress io.Writer
	// Wait bounds the backend's own waits (a namespace's default
	// ServiceAccount).
	Wait time.Duration
	// Nodes is the number of simulated nodes, for backends that simulate
	// them.
	Nodes int
	// KeepDir records a temporary directory the backend made (with
	// os.MkdirTemp, a "presetsim-" pattern), so that the next run removes
	// it if this one is killed; the backend still removes it on Stop. Nil
	// in tests that start a backend alone.
	KeepDir func(dir string) error
	// KeepResource records something the backend made outside this host's
	// files (a kind cluster, by name), so that the next run has the
	// backend's Registration.Reap remove it if this one is killed. Nil in
	// tests that start a backend alone.
	KeepResource func(name string) error
}

// KeepDir calls keep when it is not nil.
func KeepDir(keep func(string) error, dir string) error {
	if keep == nil {
		return nil
	}
	return keep(dir)
}

// AdmissionFailures is the ability of a cluster that calls the
// implementation itself, in-process (the offline backend): the admission
// requests in a namespace that got no valid answer (a plug-in that
// panicked), as sentences, which fail R5.3.
type AdmissionFailures interface {
	FailedRequests(namespace string) []string
}

// Reaper is the ability of a backend that makes things outside this host's
// files (Run.KeepResource): Reap removes one, by name, that a run which was
// killed left.
type Reaper interface {
	Reap(name string) error
}

// Cluster is a started backend.
type Cluster interface {
	Objects
	// Stop stops what Start started and removes what the run left on a
	// cluster that stays. It is called once.
	Stop() error
}

// Objects is what scenarios do to a cluster. Objects are unstructured, as
// written in the feature file; resources are resolved by Mapper.
type Objects interface {
	Mapper() meta.RESTMapper
	// CreateNamespace creates a namespace and, on an API server, waits
	// until it has its default ServiceAccount, without which pods are
	// refused.
	CreateNamespace(ctx context.Context, name string, labels map[string]string) error
	LabelNamespace(ctx context.Context, name, key, value string) error
	Create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, opts CreateOptions) (*unstructured.Unstructured, error)
	Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error)
	List(ctx context.Context, gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error)
	Update(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, warnings *Warnings) (*unstructured.Unstructured, error)
	MergePatch(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, patch []byte) error
	Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) error
	// DeleteAll deletes every object of a resource in a namespace at once,
	// with no grace period, so that the namespace can be used again (as
	// presetsim fuzz does) without waiting for a namespace to be deleted.
	DeleteAll(ctx context.Context, gvr schema.GroupVersionResource, namespace string) error
	// Watch reports changes to the resource in namespace (every namespace
	// when "") until ctx ends or the watch is stopped.
	Watch(ctx context.Context, gvr schema.GroupVersionResource, namespace string) (watch.Interface, error)
	// Validates reports whether Create and Update run the API server's
	// validation (schemas, pod validation); when not, a request that
	// succeeded might have been rejected by a real API server.
	Validates() bool
	// Clients are client-go clients of the cluster, for the typed reads of
	// package containerenv and for an in-process module's informers.
	Clients() Clients
}

// Clients are client-go clients of a cluster.
type Clients struct {
	Typed   kubernetes.Interface
	Dynamic dynamic.Interface
}

// CreateOptions change how Create creates an object.
type CreateOptions struct {
	// Warnings collects the API server's warnings, when not nil.
	Warnings *Warnings
	// DryRun is a server-side dry run: nothing is stored or recorded.
	DryRun bool
}

// APIServer is the ability of a cluster that is a real API server.
type APIServer interface {
	API() *API
}

// API gives admin access to a real API server.
type API struct {
	Config     *rest.Config
	KubeConfig []byte
	Client     kubernetes.Interface
	Dynamic    dynamic.Interface
	Mapper     meta.RESTMapper
	// Version is the API server's version (GitVersion).
	Version string
}

// WebhookHost is the ability of an API server that can call a webhook
// served on this host: Host is the address it reaches this host at.
type WebhookHost interface {
	WebhookHost() string
}

// InProcessAdmission is the ability of a cluster that calls an admission
// plug-in in-process for every pod created in the namespaces the options
// select, as an API server calls a webhook.
type InProcessAdmission interface {
	Admit(plugin admission.MutationInterface, opts AdmitOptions) error
}

// AdmitOptions say which requests a cluster that admits in-process sends
// the plug-in (InProcessAdmission).
type AdmitOptions struct {
	// Namespaces selects the namespaces whose pods it admits; every
	// namespace when nil.
	Namespaces *metav1.LabelSelector
	// Unsubscribed is what becomes of what the plug-in does with the
	// requests other than a pod's creation, which the harness sends it
	// besides (UPDATE of pods, their ephemeralcontainers, workloads).
	Unsubscribed Unsubscribed
}

// Unsubscribed is what a run makes of what an implementation does with a
// request its registration does not send it (R5.4 of the specification):
// the harness sends such requests anyway (UPDATE of pods and of their
// ephemeralcontainers subresource, CREATE of workloads), to see what the
// implementation would do with them if it were sent them.
type Unsubscribed string

const (
	// UnsubscribedReport, the default (""): the implementation's answer
	// is kept from the API server and what it would have done is a
	// finding (outcome.Finding), shown and counted, failing nothing: in a
	// cluster such a request never reaches it.
	UnsubscribedReport Unsubscribed = "report"
	// UnsubscribedFail: its answer goes to the API server, as if its
	// registration sent it every such request, and a change fails the
	// scenario (R2.1, R3.2, R2.6): the stricter reading, asked for.
	UnsubscribedFail Unsubscribed = "fail"
)

// Fail reports whether u asks for such requests to be judged.
func (u Unsubscribed) Fail() bool { return u == UnsubscribedFail }

// Findings is the ability of an implementation, or of a cluster that calls
// it in-process, whose answers to requests its registration does not send
// it the harness sees: what it did with them, by namespace
// (UnsubscribedReport).
type Findings interface {
	FindingsIn(namespace string) []outcome.Finding
}

// Subresources is the ability of a cluster to update a subresource of an
// object, as kubectl debug updates a pod's ephemeralcontainers: the harness
// checks that an implementation leaves such requests alone (R3.2).
type Subresources interface {
	UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, subresource string) (*unstructured.Unstructured, error)
}

// LaterAdmissions is the ability of a cluster without an API server to run
// another mutating admission after the implementation's, as an API server
// runs the webhooks registered after it: AnnotateAfter sets an annotation
// on every pod created in the namespace once the implementation admitted
// it, and then, as reinvocationPolicy IfNeeded asks, admits the pod again
// (R3.8). The returned function removes it.
type LaterAdmissions interface {
	AnnotateAfter(namespace, key, value string) (remove func(), err error)
}

// NodeSimulator is the ability of a cluster whose nodes are simulated.
type NodeSimulator interface {
	// SimulatedNodes is nil when the cluster runs none.
	SimulatedNodes() NodeSet
}

// NodeSet is a cluster's simulated nodes: the harness adds and removes
// them ("Given the cluster has 5 nodes") and asks in what order their
// kubelets started a namespace's pods.
type NodeSet interface {
	Nodes() []string
	SetNodes(ctx context.Context, n int) error
	CreationOrder(namespace string) []string
}

// Kubelet is the ability of a cluster whose pods run on a real kubelet:
// containers print what they see (the printenv image) and can run commands.
type Kubelet interface {
	Logs(ctx context.Context, namespace, pod, container string) ([]byte, error)
	Exec(ctx context.Context, namespace, pod, container string, command []string) error
}

// Waits is the ability of a backend whose changes take effect faster than
// an API server's: the waits it suggests when the run sets none.
type Waits interface {
	Waits() (wait, settle time.Duration)
}

// Processes is the ability of a backend that starts child processes: the
// harness records them so that the next run stops what a killed one left.
type Processes interface {
	StartsProcesses() bool
}

// Ephemeral is the ability of a cluster whose objects vanish with the run
// (the offline backend's memory): no one can look at a scenario's
// namespaces once it has ended, so they are deleted then, and memory does
// not grow with the scenarios run.
type Ephemeral interface {
	Ephemeral() bool
}

// Releaser is the ability of a cluster that keeps its objects after the
// run (an existing cluster) to delete a scenario's namespaces and what the
// run created in them as soon as the scenario has ended, in the
// background: its Stop then waits for what is still going, and the
// clean-up overlaps the run instead of following it.
type Releaser interface {
	// Release starts deleting the namespaces (physical names) and returns
	// at once; errors are Stop's.
	Release(namespaces []string)
}

// PodDefaulter is the ability of a cluster that defaults a pod in
// process, as its Create would (the offline backend, which is its own API
// server): the harness then defaults an expected pod without a dry-run
// request and its two conversions each way. The pod is not changed; the
// system fields (name, UID, resourceVersion) are not set.
type PodDefaulter interface {
	DefaultPod(pod *corev1.Pod) *corev1.Pod
}

// IsEphemeral reports whether a cluster's objects vanish with the run.
func IsEphemeral(c Objects) bool {
	e, ok := c.(Ephemeral)
	return ok && e.Ephemeral()
}

// RunsPods reports whether the cluster schedules and starts pods, on
// simulated nodes or real ones.
func RunsPods(c Objects) bool {
	if sim, ok := c.(NodeSimulator); ok && sim.SimulatedNodes() != nil {
		return true
	}
	_, ok := c.(Kubelet)
	return ok
}

// Nodes returns the cluster's simulated nodes, nil when it has none.
func Nodes(c Objects) NodeSet {
	if sim, ok := c.(NodeSimulator); ok {
		return sim.SimulatedNodes()
	}
	return nil
}

// APIOf returns the API server of a cluster, nil when it is none.
func APIOf(c Objects) *API {
	if a, ok := c.(APIServer); ok {
		return a.API()
	}
	return nil
}

// LoopbackWebhooks is the ability of a backend whose API server runs on
// this host and so can call a webhook served on 127.0.0.1, as an external
// webhook under test usually is.
type LoopbackWebhooks interface {
	CallsLoopbackWebhooks() bool
}
