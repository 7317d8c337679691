package kindcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
	kindexec "sigs.k8s.io/kind/pkg/exec"
)

// DefaultName is the cluster's name when Options.Name is empty.
const DefaultName = "presetsim"

// NodeImageRepository is the repository of the node images that
// hack/kind/build-node-image.sh builds; tags are <k8s version>-<input hash>.
const NodeImageRepository = "presetsim.dev/kind-node"

// PrintenvImage is the test image of the node image (cmd/printenv): it
// prints its environment and sleeps.
const PrintenvImage = "presetsim.dev/printenv:v1"

// Options configure Create.
type Options struct {
	// Name of the cluster; DefaultName when empty. A cluster of that name
	// that already exists is reused, and never deleted by Delete.
	Name string
	// Image is the node image; the newest presetsim.dev/kind-node image
	// when empty.
	Image string
	// Keep leaves a cluster this run created in place at Delete, and its
	// node in place when creation fails (to look at what went wrong).
	Keep bool
	// Progress receives kind's status lines; io.Discard when nil.
	Progress io.Writer
	// Wait bounds waiting for the node to become Ready; 3 minutes when zero.
	Wait time.Duration
	// KeepDir records the cluster's temporary directory as soon as it
	// exists (backend.Run.KeepDir); may be nil.
	KeepDir func(dir string) error
	// KeepCluster records the name of a cluster this run is about to
	// create, and will delete (backend.Run.KeepResource); may be nil.
	KeepCluster func(name string) error
}

// Cluster is a kind cluster that the harness uses.
type Cluster struct {
	// Name of the cluster.
	Name string
	// Kubeconfig reaches the API server from this host.
	Kubeconfig []byte
	// HostAddress is this host's address on the cluster's Docker network:
	// where the node reaches a server that the harness runs.
	HostAddress string
	// Created is how long creation took (zero when reused).
	Created time.Duration

	provider *cluster.Provider
	created  bool // this run asked kind to create the cluster
	keep     bool
	dir      string // private directory of the kubeconfig file
}

// Create creates the cluster, or reuses the one of that name, and returns
// it with its kubeconfig. It fails at once, naming what is missing, when no
// Docker engine answers or the node image does not exist.
func Create(ctx context.Context, opts Options) (_ *Cluster, err error) {
	if opts.Name == "" {
		opts.Name = DefaultName
	}
	if opts.Wait == 0 {
		opts.Wait = 3 * time.Minute
	}
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	if err := CheckDocker(ctx); err != nil {
		return nil, err
	}
	c := &Cluster{Name: opts.Name, keep: opts.Keep}
	c.provider = cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(newLogger(progress)))
	existing, err := c.provider.List()
	if err != nil {
		return nil, fmt.Errorf("listing kind clusters: %w", err)
	}
	if c.dir, err = os.MkdirTemp("", "presetsim-kind-"); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = c.Delete()
		}
	}()
	if opts.KeepDir != nil {
		if err := opts.KeepDir(c.dir); err != nil {
			return nil, err
		}
	}
	if slices.Contains(existing, opts.Name) {
		fmt.Fprintf(progress, "reusing kind cluster %q\n", opts.Name)
	} else {
		if opts.Image == "" {
			if opts.Image, err = NewestImage(ctx); err != nil {
				return nil, err
			}
		} else if err := imageExists(ctx, opts.Image); err != nil {
			return nil, err
		}
		if opts.KeepCluster != nil && !opts.Keep {
			if err := opts.KeepCluster(opts.Name); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(progress, "creating kind cluster %q from %s ...\n", opts.Name, opts.Image)
		began := time.Now()
		c.created = true
		err := c.provider.Create(opts.Name,
			cluster.CreateWithV1Alpha4Config(Config()),
			cluster.CreateWithNodeImage(opts.Image),
			cluster.CreateWithWaitForReady(opts.Wait),
			cluster.CreateWithKubeconfigPath(filepath.Join(c.dir, "kubeconfig")),
			cluster.CreateWithDisplayUsage(false),
			cluster.CreateWithDisplaySalutation(false),
			cluster.CreateWithRetain(opts.Keep),
		)
		if err != nil {
			return nil, fmt.Errorf("creating kind cluster %q: %w%s", opts.Name, err, commandOutput(err))
		}
		c.Created = time.Since(began)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted while creating kind cluster %q: %w", opts.Name, ctx.Err())
		}
	}
	kubeconfig, err := c.provider.KubeConfig(opts.Name, false)
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig of kind cluster %q: %w", opts.Name, err)
	}
	c.Kubeconfig = []byte(kubeconfig)
	if c.HostAddress, err = hostAddress(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Config is the cluster configuration: one control-plane node, envtest's
// Service range, no default CNI (the image has a static one), no kube-proxy
// and no CoreDNS (no images for them), and a kubelet that accepts a cgroup
// v1 host.
func Config() *v1alpha4.Cluster {
	cfg := &v1alpha4.Cluster{
		TypeMeta: v1alpha4.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		Nodes:    []v1alpha4.Node{{Role: v1alpha4.ControlPlaneRole}},
		Networking: v1alpha4.Networking{
			// envtest's range (its API server's default): features that pin
			// a Service's clusterIP pin one of it, and the kubernetes
			// Service is 10.0.0.1 on every backend.
			ServiceSubnet:     "10.0.0.0/24",
			DisableDefaultCNI: true,
			KubeProxyMode:     v1alpha4.ProxyMode("none"), // kind knows "none"; v1alpha4 names no constant for it
		},
		KubeadmConfigPatches: []string{
			"kind: KubeletConfiguration\nfailCgroupV1: false\n",
			"kind: InitConfiguration\nskipPhases: [preflight, addon/kube-proxy, addon/coredns]\n",
		},
	}
	return cfg // kind defaults the rest when it converts the configuration
}

// Stays reports whether Delete leaves the cluster in place: it existed
// before Create, or it is to be kept.
func (c *Cluster) Stays() bool { return !c.created || c.keep }

// Nodes lists the cluster's nodes.
func (c *Cluster) Nodes() ([]nodes.Node, error) {
	return c.provider.ListNodes(c.Name)
}

// WriteFiles writes every file (content by path) on every node, listing
// the nodes once.
func (c *Cluster) WriteFiles(files map[string]string) error {
	list, err := c.Nodes()
	if err != nil {
		return err
	}
	for _, n := range list {
		for _, path := range slices.Sorted(maps.Keys(files)) {
			if err := nodeutils.WriteFile(n, path, files[path]); err != nil {
				return fmt.Errorf("writing %s on node %s: %w", path, n.String(), err)
			}
		}
	}
	return nil
}

// Delete deletes the cluster if this run created it and it is not to be
// kept, and removes the private kubeconfig directory. It may be called more
// than once.
func (c *Cluster) Delete() error {
	var errs []error
	if c.created && !c.keep {
		c.created = false
		if err := c.provider.Delete(c.Name, filepath.Join(c.dir, "kubeconfig")); err != nil {
			errs = append(errs, fmt.Errorf("deleting kind cluster %q: %w", c.Name, err))
		}
	}
	if c.dir != "" {
		errs = append(errs, os.RemoveAll(c.dir))
		c.dir = ""
	}
	return errors.Join(errs...)
}

// DeleteNamed deletes the kind cluster name, if it exists: what a killed
// run that created it left.
func DeleteNamed(name string) error {
	provider := cluster.NewProvider(cluster.ProviderWithDocker())
	existing, err := provider.List()
	if err != nil {
		return fmt.Errorf("listing kind clusters: %w", err)
	}
	if !slices.Contains(existing, name) {
		return nil
	}
	if err := provider.Delete(name, ""); err != nil {
		return fmt.Errorf("deleting kind cluster %q: %w", name, err)
	}
	return nil
}

// CheckDocker fails, in one line, unless a Docker engine answers.
func CheckDocker(ctx context.Context) error {
	if _, err := exec.LookPath("docker"); err != nil {
		return errors.New("the kind backend needs Docker: no docker command on PATH")
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return fmt.Errorf("the kind backend needs a Docker engine, and none answers: docker info: %s", firstLine(out, err))
	}
	return nil
}

// NewestImage returns the most recently built node image.
func NewestImage(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", "image", "ls", NodeImageRepository, "--format", "{{.Repository}}:{{.Tag}}").Output()
	if err != nil {
		return "", fmt.Errorf("listing node images: %s", firstLine(out, err))
	}
	images := strings.Fields(string(out))
	if len(images) == 0 {
		return "", fmt.Errorf("no kind node image (%s): build it with `make kind-image`", NodeImageRepository)
	}
	return images[0], nil // docker lists the newest first
}

func imageExists(ctx context.Context, image string) error {
	if out, err := exec.CommandContext(ctx, "docker", "image", "inspect", image).CombinedOutput(); err != nil {
		return fmt.Errorf("no node image %s: build it with `make kind-image` (%s)", image, firstLine(out, err))
	}
	return nil
}

// hostAddress is the gateway of kind's Docker network: this host, as the
// node sees it.
func hostAddress(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", "network", "inspect", "kind",
		"--format", "{{range .IPAM.Config}}{{.Gateway}} {{end}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding this host's address on the kind network: %s", firstLine(out, err))
	}
	return pickIPv4(string(out))
}

func pickIPv4(gateways string) (string, error) {
	for _, g := range strings.Fields(gateways) {
		if !strings.Contains(g, ":") {
			return g, nil
		}
	}
	return "", fmt.Errorf("the kind network has no IPv4 gateway (gateways: %q)", strings.TrimSpace(gateways))
}

// commandOutput is the end of the output of the command that made kind
// fail (kubeadm's, say), indented, or "" when the error carries none.
func commandOutput(err error) string {
	run := kindexec.RunErrorForError(err)
	if run == nil || len(run.Output) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(run.Output)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return "\n  its output ended with:\n    " + strings.Join(lines, "\n    ")
}

// firstLine is the first line of a command's output, or its error.
func firstLine(out []byte, err error) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if line == "" && err != nil {
		return err.Error()
	}
	return line
}
