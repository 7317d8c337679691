// Package example is an example out-of-tree implementation: a PodPreset
// look-alike that differs from the canonical one the way out-of-tree
// replacements do, with its own API (PodInjection) and annotations, as
// profiles/example/profile.yaml describes. It shows what a profile
// declares, and that the verdict then blames only what is really wrong.
package example

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/admission"
	genericinitializer "k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"presetsim.dev/presetsim/internal/implementation/module"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// Name is the example implementation's module name.
const Name = "example/podinjection"

// Its API and annotations, as profiles/example/profile.yaml describes them.
var exampleGVR = schema.GroupVersionResource{Group: "presets.example.com", Version: "v1alpha1", Resource: "podinjections"}

const (
	exampleApplied = "presets.example.com/applied-"
	exampleSkip    = "presets.example.com/skip"
)

// Register adds the example implementation: a PodPreset look-alike
// that differs from the canonical one the way out-of-tree replacements do.
// Its presets are PodInjections (presets.example.com/v1alpha1) whose
// selector is spec.podSelector; it annotates pods presets.example.com/
// applied-<name> and honours presets.example.com/skip; and on a conflict it
// refuses the pod, with no event and no warning. Run it with its profile,
// profiles/example/profile.yaml, and the only failures left are the
// refused pods, attributed to R4.2.
func Register(m *module.Registry) {
	m.Register(Name, func(io.Reader) (admission.Interface, error) {
		return &examplePlugin{Handler: admission.NewHandler(admission.Create)}, nil
	})
}

// examplePlugin reads its PodInjections from an informer of its own, made
// from the dynamic client the API server's initializer hands it, run for
// the module's life (module.Runnable) and its sync the plug-in's ReadyFunc.
type examplePlugin struct {
	*admission.Handler
	informer cache.SharedIndexInformer
}

var (
	_ genericinitializer.WantsDynamicClient = &examplePlugin{}
	_ module.Runnable                       = &examplePlugin{}
	_ module.PresetWaiter                   = &examplePlugin{}
)

// SetDynamicClient implements initializer.WantsDynamicClient.
func (p *examplePlugin) SetDynamicClient(client dynamic.Interface) {
	informer := dynamicinformer.NewFilteredDynamicInformer(client, exampleGVR, metav1.NamespaceAll, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil)
	p.informer = informer.Informer()
	p.SetReadyFunc(p.informer.HasSynced)
}

// ValidateInitialization checks that the informer was made.
func (p *examplePlugin) ValidateInitialization() error {
	if p.informer == nil {
		return errors.New("example/podinjection: no dynamic client")
	}
	return nil
}

// Start runs the informer until ctx ends.
func (p *examplePlugin) Start(ctx context.Context) error {
	p.informer.RunWithContext(ctx)
	return nil
}

// presets converts the namespace's PodInjections to PodPresets.
func (p *examplePlugin) presets(namespace string) ([]*v1alpha1.PodPreset, error) {
	objs, err := p.informer.GetIndexer().ByIndex(cache.NamespaceIndex, namespace)
	if err != nil {
		return nil, err
	}
	var out []*v1alpha1.PodPreset
	for _, o := range objs {
		u := o.(*unstructured.Unstructured).DeepCopy()
		if sel, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "podSelector"); found {
			unstructured.RemoveNestedField(u.Object, "spec", "podSelector")
			_ = unstructured.SetNestedField(u.Object, sel, "spec", "selector")
		}
		pp := &v1alpha1.PodPreset{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pp); err != nil {
			return nil, err
		}
		out = append(out, pp)
	}
	return out, nil
}

func (p *examplePlugin) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetOperation() != admission.Create || a.GetSubresource() != "" || a.GetResource().GroupResource() != corev1.Resource("pods") {
		return nil
	}
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok || pod.Annotations[exampleSkip] == "true" {
		return nil
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return nil // as every replacement does; the new mirror scenario caught its absence
	}
	presets, err := p.presets(a.GetNamespace())
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	selected, _ := merge.Select(pod, presets)
	if len(selected) == 0 {
		return nil
	}
	result := merge.Apply(pod, selected)
	if len(result.Conflicts) > 0 {
		return admission.NewForbidden(a, fmt.Errorf("podinjection conflict: %s", strings.Join(conflict.Messages(result.Conflicts), "; ")))
	}
	out := result.Pod
	for k, v := range out.Annotations {
		if name, ok := strings.CutPrefix(k, merge.AnnotationKey("")); ok && pod.Annotations[k] == "" {
			delete(out.Annotations, k)
			out.Annotations[exampleApplied+name] = v
		}
	}
	*pod = *out
	return nil
}

// WaitForPreset implements module.PresetWaiter.
func (p *examplePlugin) WaitForPreset(ctx context.Context, namespace, name, resourceVersion string) error {
	return wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, func(context.Context) (bool, error) {
		o, ok, err := p.informer.GetIndexer().GetByKey(namespace + "/" + name)
		if err != nil || !ok {
			return false, err
		}
		got, err1 := strconv.ParseUint(o.(*unstructured.Unstructured).GetResourceVersion(), 10, 64)
		want, err2 := strconv.ParseUint(resourceVersion, 10, 64)
		return err1 == nil && err2 == nil && got >= want, nil
	})
}
