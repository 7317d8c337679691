package preview

import (
	"context"
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

// Run admits every pod and workload template of objs with the presets of
// objs, through impl (Reference when empty). Other kinds (ConfigMaps,
// Secrets, ...) are accepted and ignored.
func Run(ctx context.Context, objs []manifest.Object, impl Implementation) ([]Result, error) {
	lister := presetLister{}
	var pods []pending
	for _, o := range objs {
		switch obj := o.Object.(type) {
		case *v1alpha1.PodPreset:
			pp := obj.DeepCopy()
			pp.Namespace = namespaceOr(pp.Namespace)
			if pp.ResourceVersion == "" {
				pp.ResourceVersion = OfflineResourceVersion
			}
			lister[pp.Namespace] = append(lister[pp.Namespace], pp)
		case *corev1.Pod:
			pods = append(pods, pending{"Pod " + obj.Name, obj.DeepCopy()})
		default:
			if pod, ok := fromTemplate(o); ok {
				pods = append(pods, pending{fmt.Sprintf("%s %s (pod template)", o.GVK.Kind, pod.GenerateName[:len(pod.GenerateName)-1]), pod})
			}
		}
	}
	plugin, stop, err := start(ctx, impl, lister, pods)
	if err != nil {
		return nil, err
	}
	defer stop()
	var all []*v1alpha1.PodPreset
	for _, ns := range slices.Sorted(maps.Keys(lister)) {
		byName := slices.Clone(lister[ns])
		slices.SortStableFunc(byName, func(a, b *v1alpha1.PodPreset) int { return strings.Compare(a.Name, b.Name) })
		all = append(all, byName...)
	}
	var results []Result
	for _, p := range pods {
		r, err := admitPod(ctx, plugin, lister, p.source, p.pod)
		if err != nil {
			return nil, err
		}
		r.Explained = explain.Pod(r.Input, all)
		results = append(results, r)
	}
	return results, nil
}

// start starts the implementation's plug-in; stop stops it.
func start(ctx context.Context, impl Implementation, lister presetLister, pods []pending) (plugin admission.MutationInterface, stop func(), err error) {
	switch impl {
	case Reference, "":
		p := podpreset.New()
		p.SetPodPresetLister(lister)
		return p, func() {}, p.ValidateInitialization()
	case Policy:
		chain, err := startPolicy(ctx, lister, pods)
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
	var conflicts []conflict.Item
	// The specification's options allow one outcome.
	if outcomes := model.Admit(model.Admission{Presets: lister[in.Namespace], Pod: in}, model.Options{}); len(outcomes) == 1 {
		conflicts = outcomes[0].Conflicts
	}
	return Result{Source: source, Input: in, Output: out, Applied: applied(in, out), Warnings: outcome.Warnings, Conflicts: conflicts}, nil
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

// pending is a pod to admit and where it came from.
type pending struct {
	source string
	pod    *corev1.Pod
}

// presetLister serves the presets read from the input, by namespace.
type presetLister map[string][]*v1alpha1.PodPreset

func (l presetLister) List(namespace string) ([]*v1alpha1.PodPreset, error) { return l[namespace], nil }
