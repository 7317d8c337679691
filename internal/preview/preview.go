package preview

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"

	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/explain"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/ordered"
	podpreset "presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
)

// OfflineResourceVersion stands in for the resourceVersion of a preset read
// from a file without one.
const OfflineResourceVersion = "offline"

// Result is what admission did to one pod.
type Result struct {
	// Source names where the pod came from: "Pod website" or
	// "Deployment web (pod template)".
	Source string
	// Input is the pod as submitted; Output as admitted.
	Input, Output *corev1.Pod
	// Applied lists the presets applied, by name.
	Applied []string
	// Warnings holds the admission warnings: each conflict (R4.3) and any
	// preset skipped for an invalid selector.
	Warnings []string
	// Conflicts are the conflicts that kept admission from applying the
	// matching presets (R4.1, R4.2), as data.
	Conflicts []conflict.Item
	// Explained is what each preset of the input, of every namespace, does
	// to the pod and why (package explain), presets by namespace and name.
	Explained []explain.Verdict
}

// Conflicted reports whether a conflict kept admission from applying the
// matching presets.
func (r Result) Conflicted() bool { return len(r.Conflicts) > 0 }

// Implementation is what admits the pods.
type Implementation string

const (
	// Reference is the reference admission plug-in (package
	// presets/admission).
	Reference Implementation = "reference"
	// Policy is the presets compiled into MutatingAdmissionPolicies
	// (package presets/policy), evaluated by the API server's own
	// mutating-policy plug-in run in-process (package policyplugin).
	Policy Implementation = "policy"
)

// Implementations are the implementations Run knows.
var Implementations = []Implementation{Reference, Policy}

// Input is what the pods are admitted with and what is admitted: the
// presets of the manifests, by namespace, and their pods and workload
// templates in order, each kept as JSON (a fraction of a decoded pod's
// memory) until it is admitted. Add each object to it, then admit with
// Each.
type Input struct {
	presets    presetLister
	pods       []pending
	namespaces map[string]bool
}

// Add takes an object of the manifests: a preset, a pod, a workload (its
// template); other kinds (ConfigMaps, Secrets, ...) are accepted and
// ignored.
func (in *Input) Add(o manifest.Object) error {
	if in.presets == nil {
		in.presets, in.namespaces = presetLister{}, map[string]bool{}
	}
	var (
		source string
		pod    *corev1.Pod
	)
	switch obj := o.Object.(type) {
	case *v1alpha1.PodPreset:
		pp := obj.DeepCopy()
		pp.Namespace = namespaceOr(pp.Namespace)
		if pp.ResourceVersion == "" {
			pp.ResourceVersion = OfflineResourceVersion
		}
		in.presets[pp.Namespace] = append(in.presets[pp.Namespace], pp)
		in.namespaces[pp.Namespace] = true
		return nil
	case *corev1.Pod:
		source, pod = "Pod "+obj.Name, obj
	default:
		p, ok := fromTemplate(o)
		if !ok {
			return nil
		}
		source, pod = fmt.Sprintf("%s %s (pod template)", o.GVK.Kind, p.GenerateName[:len(p.GenerateName)-1]), p
	}
	data, err := json.Marshal(pod)
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	in.pods = append(in.pods, pending{source: source, pod: data})
	in.namespaces[namespaceOr(pod.Namespace)] = true
	return nil
}

// Pods is how many pods and workload templates the input has.
func (in *Input) Pods() int { return len(in.pods) }

// Run admits every pod and workload template of objs with the presets of
// objs, through impl (Reference when empty), and returns what admission
// did to each, in order.
func Run(ctx context.Context, objs []manifest.Object, impl Implementation) ([]Result, error) {
	var in Input
	for _, o := range objs {
		if err := in.Add(o); err != nil {
			return nil, err
		}
	}
	var results []Result
	err := Each(ctx, &in, Options{Implementation: impl, Explain: true}, func(r Result) (struct{}, error) { return struct{}{}, nil },
		func(r Result, _ struct{}) error {
			results = append(results, r)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// Options say how Each admits the pods.
type Options struct {
	// Implementation admits them; Reference when empty.
	Implementation Implementation
	// Workers is how many pods are admitted at once; one when less than 2.
	Workers int
	// Explain fills each Result's Explained; it is left empty otherwise.
	Explain bool
}

// Each admits the input's pods as opts say: work runs for each Result as soon as it is admitted, on
// the goroutine that admitted it (to render it, say), and done runs for
// each with what work made of it, in the input's order, one at a time, on
// the caller's goroutine. Only a bounded window of pods is admitted ahead
// of done: what the input costs is what done keeps. The first error (of
// admission, work or done) stops it and is returned.
func Each[T any](ctx context.Context, in *Input, opts Options, work func(Result) (T, error), done func(Result, T) error) error {
	if in.presets == nil {
		in.presets, in.namespaces = presetLister{}, map[string]bool{}
	}
	plugin, stop, err := start(ctx, opts.Implementation, in.presets, in.namespaces)
	if err != nil {
		return err
	}
	defer stop()
	var all []*v1alpha1.PodPreset
	for _, ns := range slices.Sorted(maps.Keys(in.presets)) {
		byName := slices.Clone(in.presets[ns])
		slices.SortStableFunc(byName, func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })
		all = append(all, byName...)
	}
	type admitted struct {
		result Result
		made   T
		err    error
	}
	admit := func(p pending) (a admitted) {
		defer func() {
			if r := recover(); r != nil {
				a.err = fmt.Errorf("%s: internal error while admitting the pod (please report it): %v", p.source, r)
			}
		}()
		pod := &corev1.Pod{}
		if a.err = json.Unmarshal(p.pod, pod); a.err != nil {
			return a
		}
		if a.result, a.err = admitPod(ctx, plugin, in.presets, p.source, pod); a.err != nil {
			return a
		}
		if opts.Explain {
			a.result.Explained = explain.Pod(a.result.Input, all)
		}
		a.made, a.err = work(a.result)
		return a
	}
	for a := range ordered.Map(in.pods, opts.Workers, admit) {
		if a.err != nil {
			return a.err
		}
		if err := done(a.result, a.made); err != nil {
			return err
		}
	}
	return nil
}

// start starts the implementation's plug-in; stop stops it.
func start(ctx context.Context, impl Implementation, lister presetLister, namespaces map[string]bool) (plugin admission.MutationInterface, stop func(), err error) {
	switch impl {
	case Reference, "":
		p := podpreset.New()
		p.SetPodPresetLister(lister)
		return p, func() {}, p.ValidateInitialization()
	case Policy:
		chain, err := startPolicy(ctx, lister, namespaces)
		if err != nil {
			return nil, nil, err
		}
		return chain, chain.Stop, nil
	}
	return nil, nil, fmt.Errorf("unknown implementation %q (want %s or %s)", impl, Reference, Policy)
}

// admitPod admits the pod through the plug-in; its conflicts, as data, are the
// model's (the plug-in reports them only as text).
func admitPod(ctx context.Context, plugin admission.MutationInterface, lister presetLister, source string, pod *corev1.Pod) (Result, error) {
	pod.Namespace = namespaceOr(pod.Namespace)
	in := defaults.Pod(pod)
	out := in.DeepCopy()
	outcome, err := admit.Invoke(ctx, plugin, nil, admit.PodCreate(out, false, "presetsim-preview"))
	if err == nil {
		err = outcome.Denied
	}
	if err != nil {
		return Result{}, fmt.Errorf("%s: admission refused the pod: %w", source, err)
	}
	r := Result{Source: source, Input: in, Output: out, Applied: applied(in, out), Warnings: outcome.Warnings}
	// A conflict keeps every preset that selects the pod from it (R4.2):
	// where all were applied, there was none to ask the model for.
	if selected, _ := merge.Select(in, lister[in.Namespace]); len(selected) > len(r.Applied) {
		// The specification's options allow one outcome.
		if outcomes := model.Admit(model.Admission{Presets: lister[in.Namespace], Pod: in}, model.Options{}); len(outcomes) == 1 {
			r.Conflicts = outcomes[0].Conflicts
		}
	}
	return r, nil
}

// applied lists the presets whose annotation admission added or changed.
func applied(in, out *corev1.Pod) []string {
	var names []string
	prefix := merge.AnnotationKey("")
	for k, v := range out.Annotations {
		if name, ok := strings.CutPrefix(k, prefix); ok && in.Annotations[k] != v {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// fromTemplate returns the pod a workload's controller would create from its
// template (without the per-pod fields the controller adds).
func fromTemplate(o manifest.Object) (*corev1.Pod, bool) {
	template, ok := manifest.PodTemplate(o.Object)
	owner, isObject := o.Object.(metav1.Object)
	if !ok || !isObject {
		return nil, false
	}
	return manifest.ControllerPod(owner, o.GVK, template).DeepCopy(), true
}

func namespaceOr(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

// pending is a pod to admit, as JSON, and where it came from.
type pending struct {
	source string
	pod    []byte
}

// presetLister serves the presets read from the input, by namespace.
type presetLister map[string][]*v1alpha1.PodPreset

func (l presetLister) List(namespace string) ([]*v1alpha1.PodPreset, error) { return l[namespace], nil }
