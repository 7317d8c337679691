package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

const (
	// EnableLabel, set to "true" on a namespace, turns the controller on there.
	EnableLabel = "presets.presetsim.dev/rollout-on-change"
	// CauseAnnotation on a pod template records the preset change that
	// restarted the workload, e.g. "PodPreset allow-database created".
	CauseAnnotation = "presets.presetsim.dev/restarted-for"
)

// change is a preset created or deleted.
type change struct {
	preset *v1alpha1.PodPreset
	action string // "created" or "deleted"
}

// Controller restarts the workloads a new or deleted preset selects.
type Controller struct {
	client  kubernetes.Interface
	changes chan change
	stopped chan struct{} // closed when Run returns
	now     func() time.Time
}

// New returns a controller fed by a PodPreset informer (whose objects are
// *v1alpha1.PodPreset, as the admission package's InformerLister holds them).
func New(client kubernetes.Interface, presets cache.SharedIndexInformer) (*Controller, error) {
	c := &Controller{client: client, changes: make(chan change, 100), stopped: make(chan struct{}), now: time.Now}
	_, err := presets.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			if pp, ok := obj.(*v1alpha1.PodPreset); ok && !initial {
				c.send(change{preset: pp, action: "created"})
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pp, ok := obj.(*v1alpha1.PodPreset); ok {
				c.send(change{preset: pp, action: "deleted"})
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("unable to watch PodPresets: %w", err)
	}
	return c, nil
}

// send queues a change, or drops it once Run has returned.
func (c *Controller) send(ch change) {
	select {
	case c.changes <- ch:
	case <-c.stopped:
	}
}

// Run handles changes until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	defer close(c.stopped)
	for {
		select {
		case <-ctx.Done():
			return
		case ch := <-c.changes:
			if err := c.handle(ctx, ch); err != nil && ctx.Err() == nil {
				klog.FromContext(ctx).Error(err, "unable to roll out a PodPreset change",
					"podpreset", klog.KObj(ch.preset), "action", ch.action)
			}
		}
	}
}

// handle restarts the workloads of the preset's namespace that it selects,
// if the namespace asks for it.
func (c *Controller) handle(ctx context.Context, ch change) error {
	ns := ch.preset.Namespace
	namespace, err := c.client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil // deleted with its namespace: nothing left to restart
	}
	if err != nil {
		return err
	}
	if namespace.Labels[EnableLabel] != "true" {
		return nil
	}
	selector, err := metav1.LabelSelectorAsSelector(&ch.preset.Spec.Selector)
	if err != nil {
		return fmt.Errorf("invalid selector: %w", err)
	}
	patch, err := restartPatch(fmt.Sprintf("PodPreset %s %s at %s", ch.preset.Name, ch.action, c.now().UTC().Format(time.RFC3339Nano)))
	if err != nil {
		return err
	}
	apps := c.client.AppsV1()
	var targets []workload
	deployments, err := apps.Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, d := range deployments.Items {
		targets = append(targets, workload{"Deployment", d.Name, d.Spec.Template.Labels, func(ctx context.Context) error {
			_, err := apps.Deployments(ns).Patch(ctx, d.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		}})
	}
	statefulSets, err := apps.StatefulSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, s := range statefulSets.Items {
		targets = append(targets, workload{"StatefulSet", s.Name, s.Spec.Template.Labels, func(ctx context.Context) error {
			_, err := apps.StatefulSets(ns).Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		}})
	}
	daemonSets, err := apps.DaemonSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, d := range daemonSets.Items {
		targets = append(targets, workload{"DaemonSet", d.Name, d.Spec.Template.Labels, func(ctx context.Context) error {
			_, err := apps.DaemonSets(ns).Patch(ctx, d.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		}})
	}
	for _, t := range targets {
		if !selector.Matches(labels.Set(t.templateLabels)) {
			continue
		}
		if err := t.restart(ctx); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("unable to restart %s %s/%s: %w", t.kind, ns, t.name, err)
		}
	}
	return nil
}

type workload struct {
	kind, name     string
	templateLabels map[string]string
	restart        func(context.Context) error
}

// restartPatch stamps a pod template with the cause of the restart.
func restartPatch(cause string) ([]byte, error) {
	return json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{
		"metadata": map[string]any{"annotations": map[string]string{CauseAnnotation: cause}},
	}}})
}
