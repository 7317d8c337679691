package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is the backend of an existing cluster where the implementation is
// already installed (Options.Kubeconfig). The harness then creates nothing
// but namespaces it names and labels for the run (RunLabel) and namespaced
// objects in them; it refuses any cluster-scoped create, deletes its
// namespaces at Stop, and never installs a CRD or registers a webhook.
const Cluster Backend = "cluster"

// startExisting starts a World on an existing cluster.
func startExisting(ctx context.Context, opts Options) (_ *World, err error) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	if opts.Kubeconfig == "" {
		return nil, errors.New("the cluster backend needs a kubeconfig")
	}
	if opts.External != nil {
		return nil, errors.New("on the cluster backend the implementation is already installed: do not name an external webhook")
	}
	began := time.Now()
	raw, err := os.ReadFile(opts.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("unable to read the kubeconfig: %w", err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Kubeconfig, err)
	}
	w := newWorld(Cluster, opts)
	w.KubeConfig = raw
	defer func() {
		if err != nil {
			_ = w.Stop()
		}
	}()
	if err := w.connect(cfg); err != nil {
		return nil, err
	}
	gvk := w.Profile.PresetGVK()
	fmt.Fprintf(progress, "cluster %s (Kubernetes %s): checking that %s is served ...\n", cfg.Host, w.ServerVersion, gvk.Kind)
	gv := gvk.GroupVersion().String()
	resources, err := w.Client.Discovery().ServerResourcesForGroupVersion(gv)
	if err != nil {
		return nil, fmt.Errorf("the cluster does not serve %s: install the implementation (its CRD and webhook) first: %w", gv, err)
	}
	served := false
	for _, r := range resources.APIResources {
		served = served || r.Kind == gvk.Kind
	}
	if !served {
		return nil, fmt.Errorf("the cluster serves %s but not its kind %s: install the implementation first", gv, gvk.Kind)
	}
	w.cluster = &apiCluster{client: w.Client, dynamic: w.Dynamic, rest: w.Mapper, wait: w.Timeouts.Wait, namespacedOnly: true}
	w.cleanup = w.deleteRunNamespaces
	if err := w.ready(ctx, progress, began, fmt.Sprintf(", namespaces labelled %s=%s", RunLabel, w.RunID)); err != nil {
		return nil, err
	}
	return w, nil
}

// deleteRunNamespaces deletes the namespaces this run created, by label,
// without waiting for them to go.
func (w *World) deleteRunNamespaces() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := w.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: RunLabel + "=" + w.RunID})
	if err != nil {
		return fmt.Errorf("unable to list the run's namespaces: %w", err)
	}
	var errs []error
	for _, ns := range list.Items {
		if err := w.Client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
