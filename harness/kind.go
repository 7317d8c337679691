package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"presetsim.dev/presetsim/harness/imageserver"
	"presetsim.dev/presetsim/harness/kindcluster"
	"presetsim.dev/presetsim/harness/webhook"
)

// Kind is the backend of a kind cluster made from the node image of
// hack/kind/build-node-image.sh (make kind-image): a real kube-apiserver,
// etcd, controller manager, scheduler and kubelet with containerd, in a
// Docker container. The in-process module is served as a webhook on this
// host's address on the kind network; pods run our printenv image (served
// under every image name by a registry mirror of the harness, see package
// imageserver), so the environment steps also compare what the container
// printed with what the harness computes. See package kindcluster for what
// the cluster lacks (DNS, Service routing).
const Kind Backend = "kind"

// KindOptions configure the kind backend.
type KindOptions struct {
	// Name of the cluster (kindcluster.DefaultName when empty); an existing
	// cluster of that name is reused and left in place.
	Name string
	// Image is the node image; the newest one built when empty.
	Image string
	// Keep leaves the cluster in place at the end (for a later run to
	// reuse, or to look at with kubectl).
	Keep bool
}

// mirroredRegistries are the registries whose pulls the node's containerd
// sends to the harness's image server (containerd 1.6 reads
// certs.d/<host>/hosts.toml per registry and has no catch-all).
var mirroredRegistries = []string{"docker.io", "gcr.io", "registry.k8s.io", "quay.io", "ghcr.io", "k8s.gcr.io", "mcr.microsoft.com", "public.ecr.aws"}

// startKind starts a World on a kind cluster.
func startKind(ctx context.Context, opts Options, factory ModuleFactory) (_ *World, err error) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	if opts.External != nil {
		return nil, errors.New("the kind backend tests the in-process modules; an external webhook is for the envtest backend")
	}
	began := time.Now()
	kc, err := kindcluster.Create(ctx, kindcluster.Options{Name: opts.Kind.Name, Image: opts.Kind.Image, Keep: opts.Kind.Keep, Progress: progress})
	if err != nil {
		return nil, err
	}
	w := newWorld(Kind, opts)
	w.kind = kc
	defer func() {
		if err != nil {
			_ = w.Stop()
		}
	}()
	if kc.Created > 0 {
		fmt.Fprintf(progress, "kind cluster %q created in %s\n", kc.Name, kc.Created.Round(10*time.Millisecond))
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig of kind cluster %q: %w", kc.Name, err)
	}
	w.KubeConfig = kc.Kubeconfig
	if err := w.connect(cfg); err != nil {
		return nil, err
	}
	w.cluster = &apiCluster{client: w.Client, dynamic: w.Dynamic, rest: w.Mapper, realNodes: true, wait: w.Timeouts.Wait}
	w.cleanup = w.cleanKind
	fmt.Fprintf(progress, "serving the test image to the node's containerd ...\n")
	if err := w.serveImages(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "installing the %s CRD ...\n", w.presetKind())
	if err := w.installCRD(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "serving admission module %q as a webhook on %s ...\n", opts.Module, kc.HostAddress)
	if err := w.startModule(opts.Module, factory, ModuleDeps{Client: w.Client, Dynamic: w.Dynamic}); err != nil {
		return nil, err
	}
	if err := w.serveModuleOn(ctx, kc.HostAddress, opts.AllNamespaces); err != nil {
		return nil, err
	}
	if err := w.ready(ctx, progress, began, ""); err != nil {
		return nil, err
	}
	return w, nil
}

// serveImages serves the printenv image, as saved from the node image's
// build, under every name on this host's kind-network address, and makes it
// the mirror of the usual registries on every node.
func (w *World) serveImages(ctx context.Context) error {
	var saved, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", "save", kindcluster.PrintenvImage)
	cmd.Stdout, cmd.Stderr = &saved, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("reading the test image %s (built by make kind-image): %v: %s", kindcluster.PrintenvImage, err, bytes.TrimSpace(stderr.Bytes()))
	}
	img, err := imageserver.FromDockerArchive(&saved)
	if err != nil {
		return fmt.Errorf("the test image %s: %w", kindcluster.PrintenvImage, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(w.kind.HostAddress, "0"))
	if err != nil {
		return fmt.Errorf("unable to listen for the image mirror on the kind network: %w", err)
	}
	w.images = webhook.ServeHTTP(ln, imageserver.Handler(img))
	mirror := w.images.URL
	hosts := fmt.Sprintf("# written by presetsim for run %s\n[host.%q]\n  capabilities = [\"pull\", \"resolve\"]\n", w.RunID, mirror)
	files := make(map[string]string, len(mirroredRegistries))
	for _, registry := range mirroredRegistries {
		files["/etc/containerd/certs.d/"+registry+"/hosts.toml"] = hosts
	}
	return w.kind.WriteFiles(files)
}

// cleanKind undoes what the run created on a cluster that stays (reused or
// kept): its namespaces and its webhook registration. A cluster that is
// deleted needs none of it.
func (w *World) cleanKind() error {
	if !w.kind.Stays() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := w.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, w.webhookConfigName(), metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		err = nil
	}
	return errors.Join(err, w.deleteRunNamespaces())
}

// stopKind stops the image mirror and deletes the cluster (unless kept or
// reused).
func (w *World) stopKind() error {
	if w.kind == nil {
		return nil
	}
	var errs []error
	if w.images != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, w.images.Stop(ctx))
		cancel()
	}
	errs = append(errs, w.kind.Delete())
	return errors.Join(errs...)
}
