package kind

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/backend/apiclient"
	"presetsim.dev/presetsim/internal/backend/imageserver"
	"presetsim.dev/presetsim/internal/backend/kindcluster"
)

// Name is the backend's registered name.
const Name = "kind"

// Options configure the kind backend.
type Options struct {
	// Name of the cluster (kindcluster.DefaultName when empty); an existing
	// cluster of that name is reused and left in place.
	Name string
	// Image is the node image; the newest one built when empty.
	Image string
	// Keep leaves the cluster in place at the end (for a later run to
	// reuse, or to look at with kubectl).
	Keep bool
}

// Backend starts (or reuses) a kind cluster.
type Backend struct{ opts Options }

// New returns the kind backend.
func New(opts Options) *Backend { return &Backend{opts: opts} }

// Registration registers the backend with its flags.
func Registration() backend.Registration {
	return backend.Registration{
		Name:    Name,
		Summary: "a kind cluster from make kind-image's node image",
		Flags: func(fs *pflag.FlagSet) func() (backend.Backend, error) {
			var opts Options
			fs.StringVar(&opts.Name, "kind-name", kindcluster.DefaultName, "kind backend: the cluster's name; an existing cluster of that name is reused and left in place")
			fs.StringVar(&opts.Image, "kind-image", "", "kind backend: the node image; the newest presetsim.dev/kind-node image when empty")
			fs.BoolVar(&opts.Keep, "keep-cluster", false, "kind backend: leave the cluster in place at the end")
			return func() (backend.Backend, error) { return New(opts), nil }
		},
		// A cluster a killed run created (and was to delete).
		Reap: kindcluster.DeleteNamed,
	}
}

// Name is "kind".
func (b *Backend) Name() string { return Name }

// Reap deletes a kind cluster a killed run left (backend.Reaper).
func (b *Backend) Reap(name string) error { return kindcluster.DeleteNamed(name) }

// running is a kind cluster, started; it serves the printenv image to its
// nodes and its pods run on a real kubelet.
type running struct {
	*apiclient.Cluster
	kind   *kindcluster.Cluster
	images *imageserver.Mirror
	runID  string
}

// Start creates (or reuses) the cluster and serves it the test image.
func (b *Backend) Start(ctx context.Context, run backend.Run) (_ backend.Cluster, err error) {
	kc, err := kindcluster.Create(ctx, kindcluster.Options{Name: b.opts.Name, Image: b.opts.Image, Keep: b.opts.Keep, Progress: run.Progress, KeepDir: run.KeepDir, KeepCluster: run.KeepResource})
	if err != nil {
		return nil, err
	}
	c := &running{kind: kc, runID: run.ID}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()
	if kc.Created > 0 {
		fmt.Fprintf(run.Progress, "kind cluster %q created in %s\n", kc.Name, kc.Created.Round(10*time.Millisecond))
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig of kind cluster %q: %w", kc.Name, err)
	}
	if c.Cluster, err = apiclient.Connect(cfg, kc.Kubeconfig, apiclient.Options{Wait: run.Wait}); err != nil {
		return nil, err
	}
	fmt.Fprintf(run.Progress, "serving the test image to the node's containerd ...\n")
	if err := c.serveImages(ctx, run.ID); err != nil {
		return nil, err
	}
	return c, nil
}

// WebhookHost is this host's address on the kind network.
func (c *running) WebhookHost() string { return c.kind.HostAddress }

// Logs returns what a container printed.
func (c *running) Logs(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	return c.PodLogs(ctx, namespace, pod, container)
}

// Exec runs command in a container through the API server (pods/exec).
func (c *running) Exec(ctx context.Context, namespace, pod, container string, command []string) error {
	return c.PodExec(ctx, namespace, pod, container, command)
}

// Stop deletes what the run created on a cluster that stays (reused or
// kept), stops the image mirror and deletes the cluster unless it stays.
func (c *running) Stop() error {
	var errs []error
	if c.kind.Stays() && c.Cluster != nil {
		errs = append(errs, c.DeleteRunObjects(c.runID))
	}
	if c.images != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, c.images.Stop(ctx))
		cancel()
	}
	errs = append(errs, c.kind.Delete())
	return errors.Join(errs...)
}
