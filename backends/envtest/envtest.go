package envtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/backend/apiclient"
	"presetsim.dev/presetsim/internal/backend/controlplane"
	"presetsim.dev/presetsim/internal/nodes"
)

// Name is the backend's registered name.
const Name = "envtest"

// Options configure the envtest backend.
type Options struct {
	// BinDir holds the control-plane binaries; FindBinaries when empty.
	BinDir string
	// Build builds the binaries when FindBinaries finds none and this is
	// a checkout that can (BuildBinaries, progress to the run's Progress),
	// as `make tools` does; otherwise their absence is Start's error.
	Build bool
}

// Backend starts a control plane per run.
type Backend struct{ opts Options }

// New returns the envtest backend.
func New(opts Options) *Backend { return &Backend{opts: opts} }

// Registration registers the backend; it has no flags of its own, and it
// builds the binaries when they are missing and it can (Options.Build).
func Registration() backend.Registration {
	return backend.Registration{
		Name:    Name,
		Summary: "a real control plane built from source, with simulated nodes",
		Flags: func(*pflag.FlagSet) func() (backend.Backend, error) {
			return func() (backend.Backend, error) { return New(Options{Build: true}), nil }
		},
	}
}

// Name is "envtest".
func (b *Backend) Name() string { return Name }

// StartsProcesses is true: etcd and the control plane are child processes.
func (b *Backend) StartsProcesses() bool { return true }

// binaries finds the control-plane binaries, or builds them when the
// options say so and this checkout can.
func (b *Backend) binaries(ctx context.Context, progress io.Writer) (string, error) {
	dir, err := FindBinaries()
	if !b.opts.Build || !errors.Is(err, ErrBinariesNotBuilt) || !CanBuild() {
		return dir, err
	}
	fmt.Fprintln(progress, "The control-plane binaries are not built yet; building them now, as `make tools` does (about 7 minutes, once) ...")
	return BuildBinaries(ctx, progress)
}

// running is an envtest control plane, started, with simulated nodes.
type running struct {
	*apiclient.Cluster
	cp    *controlplane.ControlPlane
	nodes *nodes.Simulator
}

// Start starts etcd, the control plane and the simulated nodes.
func (b *Backend) Start(ctx context.Context, run backend.Run) (_ backend.Cluster, err error) {
	bin := b.opts.BinDir
	if bin == "" {
		if bin, err = b.binaries(ctx, run.Progress); err != nil {
			return nil, err
		}
	}
	began := time.Now()
	c := &running{}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()
	fmt.Fprintf(run.Progress, "starting etcd, kube-apiserver, kube-controller-manager and kube-scheduler ...\n")
	if c.cp, err = controlplane.Start(ctx, controlplane.Options{BinDir: bin, KeepDir: run.KeepDir}); err != nil {
		return nil, err
	}
	if c.Cluster, err = apiclient.Connect(c.cp.Config, c.cp.KubeConfig, apiclient.Options{Wait: run.Wait}); err != nil {
		return nil, err
	}
	fmt.Fprintf(run.Progress, "control plane up in %s; starting %d simulated nodes ...\n", time.Since(began).Round(10*time.Millisecond), run.Nodes)
	c.nodes, err = nodes.Start(ctx, c.API().Client, nodes.Options{Prefix: "presetsim-node-", Nodes: run.Nodes, KubeletVersion: c.API().Version})
	if err != nil {
		return nil, fmt.Errorf("unable to start the simulated nodes: %w", err)
	}
	fmt.Fprintf(run.Progress, "simulated nodes up in %s\n", time.Since(began).Round(10*time.Millisecond))
	return c, nil
}

// WebhookHost is 127.0.0.1: the API server runs on this host.
func (c *running) WebhookHost() string { return "127.0.0.1" }

// SimulatedNodes returns the node simulator.
func (c *running) SimulatedNodes() backend.NodeSet {
	if c.nodes == nil {
		return nil // not a nil *nodes.Simulator in an interface
	}
	return c.nodes
}

// Stop stops the nodes and the control plane.
func (c *running) Stop() error {
	if c.nodes != nil {
		c.nodes.Stop()
	}
	if c.cp != nil {
		return c.cp.Stop()
	}
	return nil
}

// CallsLoopbackWebhooks is true: the API server runs on this host.
func (b *Backend) CallsLoopbackWebhooks() bool { return true }
