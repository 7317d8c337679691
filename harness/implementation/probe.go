package implementation

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
)

// DefaultSyncTimeout bounds ProbePreset when the implementation sets none.
const DefaultSyncTimeout = 2 * time.Second

// ProbePreset waits, for at most timeout, until a dry-run pod that the
// preset's matchLabels select comes back with the preset's annotation: the
// webhook's cache has the preset. It is WaitForPreset for a webhook that
// cannot say so itself. A preset whose selector has expressions, or that
// the probe cannot show (a module that writes no annotation), costs the
// whole timeout and is not an error: the scenario's own steps judge the
// implementation.
func ProbePreset(ctx context.Context, c backend.Objects, p *profile.Profile, namespace, name string, timeout time.Duration) error {
	if timeout == 0 {
		timeout = DefaultSyncTimeout
	}
	gvk := p.PresetGVK()
	mapping, err := c.Mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	u, err := c.Get(ctx, mapping.Resource, namespace, name)
	if err != nil {
		return err
	}
	raw, _, _ := unstructured.NestedMap(u.Object, p.SelectorPath()...)
	selector := &metav1.LabelSelector{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, selector); err != nil || len(selector.MatchExpressions) > 0 {
		return nil
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: "presetsim-probe-", Namespace: namespace, Labels: selector.MatchLabels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "presetsim-probe", Image: "probe"}}},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return err
	}
	_ = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := c.Create(ctx, backend.Pods, &unstructured.Unstructured{Object: obj}, backend.CreateOptions{DryRun: true})
		if err != nil {
			return false, nil
		}
		_, ok := got.GetAnnotations()[p.AppliedKey(name)]
		return ok, nil
	})
	return nil
}
