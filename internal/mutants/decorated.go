package mutants

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"presetsim.dev/presetsim/internal/implementation/module"

	podpreset "presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// fault is a departure from the specification built around the reference
// plug-in rather than into a copy of it: it changes what the plug-in sees
// (presets), how it is called (around), what comes out (after), or where
// its events go (events). Each hook is optional.
type fault struct {
	// presets rewrites the presets the plug-in lists for a pod.
	presets func(pod *corev1.Pod, all []*v1alpha1.PodPreset) []*v1alpha1.PodPreset
	// around calls next (the reference) for the pod, or does not.
	around func(ctx context.Context, a admission.Attributes, pod *corev1.Pod, env *call, next func(context.Context) error) error
	// after edits the admitted pod, given the pod as submitted and the
	// presets that match it, as listed (before presets rewrote them).
	after func(submitted, admitted *corev1.Pod, matching []*v1alpha1.PodPreset)
	// events keeps or drops an event the reference records.
	events func(ref *corev1.ObjectReference) bool
	// other handles the requests other than CREATE of a pod that the
	// harness sends (UPDATEs, subresources, workloads), which the
	// reference leaves alone; the plug-in is then called for UPDATEs too.
	other func(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces, env *call) error
}

// call is what a fault may use during one request.
type call struct {
	// presets are the presets of the request's namespace, as the fault's
	// presets hook leaves them.
	presets []*v1alpha1.PodPreset
	// plugin returns a reference plug-in that lists the given presets, so
	// that the fault may call it with presets of its choosing; quietPlugin
	// is the same, recording no events.
	plugin, quietPlugin func(presets []*v1alpha1.PodPreset) *podpreset.Plugin
	// everyNamespace lists the presets of every namespace, by name.
	everyNamespace func() []*v1alpha1.PodPreset
	// recorder records events at once, without waiting for the pod.
	recorder record.EventRecorder
}

// decorated is the reference plug-in with one fault. It wants what the
// reference wants (package module's initializer hands them over).
type decorated struct {
	*admission.Handler
	lister   podpreset.Lister
	recorder record.EventRecorder
	fault    fault
}

var (
	_ admission.MutationInterface       = &decorated{}
	_ podpreset.WantsPodPresetLister    = &decorated{}
	_ podpreset.WantsEventRecorder      = &decorated{}
	_ admission.InitializationValidator = &decorated{}
)

// newDecorated is the admission.Factory of the reference with fault f.
func newDecorated(f fault) admission.Factory {
	return func(io.Reader) (admission.Interface, error) {
		ops := []admission.Operation{admission.Create}
		if f.other != nil {
			ops = append(ops, admission.Update)
		}
		return &decorated{Handler: admission.NewHandler(ops...), fault: f}, nil
	}
}

// SetPodPresetLister implements podpreset.WantsPodPresetLister.
func (d *decorated) SetPodPresetLister(l podpreset.Lister) { d.lister = l }

// SetEventRecorder implements podpreset.WantsEventRecorder.
func (d *decorated) SetEventRecorder(r record.EventRecorder) { d.recorder = r }

// ValidateInitialization checks that a lister was set.
func (d *decorated) ValidateInitialization() error {
	if d.lister == nil {
		return errors.New("missing PodPreset lister")
	}
	return nil
}

// listerFunc lists presets with a function.
type listerFunc func(namespace string) ([]*v1alpha1.PodPreset, error)

func (f listerFunc) List(namespace string) ([]*v1alpha1.PodPreset, error) { return f(namespace) }

// Admit runs the reference plug-in, made for this request, with the fault.
func (d *decorated) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	pod, ok := a.GetObject().(*corev1.Pod)
	podCreate := ok && a.GetOperation() == admission.Create && a.GetSubresource() == ""
	if !podCreate && d.fault.other == nil {
		return d.plugin(d.lister).Admit(ctx, a, o)
	}
	listed, err := d.lister.List(a.GetNamespace())
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if !podCreate {
		return d.fault.other(ctx, a, o, d.call(listed))
	}
	submitted := pod.DeepCopy()
	all := listed
	if d.fault.presets != nil {
		all = d.fault.presets(submitted, all)
	}
	env := d.call(all)
	next := func(ctx context.Context) error { return env.plugin(all).Admit(ctx, a, o) }
	if d.fault.around != nil {
		err = d.fault.around(ctx, a, pod, env, next)
	} else {
		err = next(ctx)
	}
	if err == nil && d.fault.after != nil {
		matching, _ := merge.Select(submitted, listed)
		d.fault.after(submitted, pod, matching)
	}
	return err
}

// call is what the fault may use during a request whose presets are all.
func (d *decorated) call(all []*v1alpha1.PodPreset) *call {
	listing := func(presets []*v1alpha1.PodPreset) podpreset.Lister {
		return listerFunc(func(string) ([]*v1alpha1.PodPreset, error) { return presets, nil })
	}
	env := &call{
		presets: all,
		plugin:  func(presets []*v1alpha1.PodPreset) *podpreset.Plugin { return d.plugin(listing(presets)) },
		quietPlugin: func(presets []*v1alpha1.PodPreset) *podpreset.Plugin {
			p := podpreset.New()
			p.SetPodPresetLister(listing(presets))
			return p
		},
		everyNamespace: d.everyNamespace,
		recorder:       d.recorder,
	}
	if r, ok := env.recorder.(*module.UIDResolvingRecorder); ok {
		env.recorder = r.EventRecorder
	}
	return env
}

// informer is the lister's informer, which holds every namespace's presets.
func (d *decorated) informer() cache.SharedIndexInformer {
	return d.lister.(interface {
		Informer() cache.SharedIndexInformer
	}).Informer()
}

// everyNamespace lists the presets of every namespace the informer holds,
// by name.
func (d *decorated) everyNamespace() []*v1alpha1.PodPreset {
	var out []*v1alpha1.PodPreset
	for _, o := range d.informer().GetStore().List() {
		if pp, ok := o.(*v1alpha1.PodPreset); ok {
			out = append(out, pp)
		}
	}
	slices.SortFunc(out, func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// plugin is a reference plug-in listing from l, with the fault's event
// filter on its recorder.
func (d *decorated) plugin(l podpreset.Lister) *podpreset.Plugin {
	p := podpreset.New()
	p.SetPodPresetLister(l)
	var recorder record.EventRecorder = d.recorder
	if d.fault.events != nil {
		recorder = filteredRecorder{EventRecorder: recorder, keep: d.fault.events}
	}
	p.SetEventRecorder(recorder)
	return p
}

// filteredRecorder drops the events keep refuses, however they are
// recorded.
type filteredRecorder struct {
	record.EventRecorder
	keep func(ref *corev1.ObjectReference) bool
}

// kept reports whether an event on object is recorded.
func (r filteredRecorder) kept(object runtime.Object) bool {
	ref, ok := object.(*corev1.ObjectReference)
	return !ok || r.keep(ref)
}

func (r filteredRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	if r.kept(object) {
		r.EventRecorder.Event(object, eventtype, reason, message)
	}
}

func (r filteredRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	if r.kept(object) {
		r.EventRecorder.Eventf(object, eventtype, reason, messageFmt, args...)
	}
}

func (r filteredRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	if r.kept(object) {
		r.EventRecorder.AnnotatedEventf(object, annotations, eventtype, reason, messageFmt, args...)
	}
}

// containers are the pod's init and app containers, to edit in place.
func containers(pod *corev1.Pod) []*corev1.Container {
	var out []*corev1.Container
	for i := range pod.Spec.InitContainers {
		out = append(out, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		out = append(out, &pod.Spec.Containers[i])
	}
	return out
}

// added lists the preset annotations the admitted pod has and the
// submitted one had not.
func added(submitted, admitted *corev1.Pod) []string {
	var out []string
	for k := range admitted.Annotations {
		if _, had := submitted.Annotations[k]; !had && strings.HasPrefix(k, merge.AnnotationKey("")) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// copies returns deep copies of presets changed by edit.
func copies(presets []*v1alpha1.PodPreset, edit func(*v1alpha1.PodPreset)) []*v1alpha1.PodPreset {
	out := make([]*v1alpha1.PodPreset, len(presets))
	for i, p := range presets {
		out[i] = p.DeepCopy()
		edit(out[i])
	}
	return out
}
