package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/backend/apiclient"
	"presetsim.dev/presetsim/internal/implementation/installed"
)

// Name is the backend's registered name.
const Name = "cluster"

// Options configure the backend.
type Options struct {
	// Kubeconfig is the path of the cluster's kubeconfig; when empty, the
	// run is inside a pod of the cluster and uses its service account
	// (rest.InClusterConfig, as every in-cluster client does).
	Kubeconfig string
	// Printenv says that the cluster's pods run presetsim's printenv test
	// image whatever image they name (a registry mirror serves it, as
	// hack/kind/mirror does): the harness then compares the environment
	// containers print with what it computes, and finishes the pods of
	// Jobs, as on the kind backend. It needs pods/log and pods/exec.
	Printenv bool
}

// Backend connects to an existing cluster.
type Backend struct{ opts Options }

// New returns the backend of the cluster opts.Kubeconfig names.
func New(opts Options) *Backend { return &Backend{opts: opts} }

// Registration registers the backend with its flag.
func Registration() backend.Registration {
	return backend.Registration{
		Name:    Name,
		Summary: "an existing cluster, --kubeconfig (or the one the run is in, from a pod)",
		// What is installed there is tested unless the flags say otherwise.
		Implementation: installed.Name,
		Flags: func(fs *pflag.FlagSet) func() (backend.Backend, error) {
			var opts Options
			fs.StringVar(&opts.Kubeconfig, "kubeconfig", "", "the existing cluster's kubeconfig, where the implementation is installed (implies --backend cluster)")
			fs.BoolVar(&opts.Printenv, "cluster-printenv", false, "cluster backend: the cluster's pods run presetsim's printenv test image, whatever image they name (a registry mirror serves it): compare what containers print, and finish Jobs' pods, as on kind")
			return func() (backend.Backend, error) { return New(opts), nil }
		},
	}
}

// Name is "cluster".
func (b *Backend) Name() string { return Name }

// running is the existing cluster, seen through the run's namespaces.
type running struct {
	*apiclient.Cluster
	runID    string
	created  ledger
	releases releases
}

// Start connects to the cluster.
func (b *Backend) Start(ctx context.Context, run backend.Run) (backend.Cluster, error) {
	cfg, raw, err := b.config()
	if err != nil {
		return nil, err
	}
	api, err := apiclient.Connect(cfg, raw, apiclient.Options{Wait: run.Wait, NamespacedOnly: true, Throttle: true})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(run.Progress, "cluster %s (Kubernetes %s)\n", cfg.Host, api.API().Version)
	c := &running{Cluster: api, runID: run.ID}
	if b.opts.Printenv {
		return &printenvCluster{c}, nil
	}
	return c, nil
}

// printenvCluster is a cluster whose pods run the printenv test image: a
// backend.Kubelet.
type printenvCluster struct{ *running }

// Logs returns what a container printed.
func (c *printenvCluster) Logs(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	return c.PodLogs(ctx, namespace, pod, container)
}

// Exec runs command in a container (pods/exec).
func (c *printenvCluster) Exec(ctx context.Context, namespace, pod, container string, command []string) error {
	return c.PodExec(ctx, namespace, pod, container, command)
}

// config reads the kubeconfig, or, with none, the pod's service account.
// An in-cluster run has no kubeconfig file to give a --webhook-command.
func (b *Backend) config() (*rest.Config, []byte, error) {
	if b.opts.Kubeconfig == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, nil, fmt.Errorf("the cluster backend needs --kubeconfig, or to run in a pod of the cluster: %w", err)
		}
		return cfg, nil, nil
	}
	raw, err := os.ReadFile(b.opts.Kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("unable to read the kubeconfig: %w", err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", b.opts.Kubeconfig, err)
	}
	return cfg, raw, nil
}

// Stop deletes what the run created, object by object (cleanUp), then the
// run's namespaces, without waiting for them to go: a cluster without a
// namespace controller keeps the empty namespaces, and nothing in them.
func (c *running) Stop() error {
	namespaces, err := c.RunNamespaces(c.runID)
	if err != nil {
		return err
	}
	var errs []error
	if err := c.cleanUp(namespaces); err != nil {
		errs = append(errs, fmt.Errorf("the run's objects: %w", err))
	}
	// The released ones are being deleted already.
	return errors.Join(append(errs, c.DeleteNamespaces(c.created.unreleased(namespaces)))...)
}
