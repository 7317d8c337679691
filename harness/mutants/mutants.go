package mutants

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"

	"presetsim.dev/presetsim/harness"
	podpreset "presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/defaults"
	"presetsim.dev/presetsim/presets/merge"
)

// Mutant is one faulty module: the rule it breaks and how.
type Mutant struct {
	// Name is the module's name without the "mutant/" prefix.
	Name string
	// Rule is the id of the broken rule, e.g. "R2.4".
	Rule string
	// Fault says what the module does wrong.
	Fault string
}

// All are the mutants: those switched on in a copy of the reference's flow
// (plugin), then those built around the reference plug-in (decorated).
var All = slices.Concat(switched, decoratedList())

// switched are the mutants of plugin.
var switched = []Mutant{
	{"applies-non-matching", "R2.3", "applies every preset of the namespace, whatever its selector"},
	{"other-namespaces", "R2.2", "takes matching presets from every namespace"},
	{"ignores-exclude", "R2.4", "mutates pods annotated podpreset.admission.kubernetes.io/exclude: \"true\""},
	{"last-preset-only", "R3.6", "applies only the last matching preset"},
	{"reverse-order", "R3.6", "applies matching presets in reverse name order"},
	{"prepends", "R3.3", "puts injected env vars and mounts before the container's own"},
	{"no-annotation", "R3.7", "adds no podpreset-<name> annotation"},
	{"skips-init-containers", "R3.2", "leaves init containers alone"},
	{"duplicates-identical", "R3.4", "appends an env var again when the container already has an identical one"},
	{"partial-apply", "R4.2", "on a conflict, still applies the presets that do not conflict"},
	{"wipes-env-on-conflict", "R4.4", "on a conflict, removes the env vars of every container"},
	{"no-conflict-event", "R4.3", "reports a conflict neither as an event nor as a warning"},
	{"events-on-dry-run", "R2.1", "records conflict events on dry runs too"},
}

// Prefix is the prefix of the mutants' module names.
const Prefix = "mutant/"

// NoopModule is the name of a module that admits every pod unchanged: an
// implementation that does nothing, which every rule of R2–R4 that asks for
// something to happen must catch.
const NoopModule = "noop"

// Register adds every mutant to the registry as Prefix+Name, and NoopModule.
func Register(m *harness.Modules) {
	for _, mu := range switched {
		m.Register(Prefix+mu.Name, harness.NewModule(func(parts harness.ModuleParts) (admission.MutationInterface, error) {
			return &plugin{Handler: admission.NewHandler(admission.Create), mutant: mu.Name, parts: parts}, nil
		}))
	}
	for _, mu := range decoratedMutants {
		m.Register(Prefix+mu.Name, harness.NewModule(func(parts harness.ModuleParts) (admission.MutationInterface, error) {
			return &decorated{Handler: admission.NewHandler(admission.Create), parts: parts, fault: mu.fault}, nil
		}))
	}
	m.Register(Kubernetes119Module, harness.NewModule(func(parts harness.ModuleParts) (admission.MutationInterface, error) {
		return &decorated{Handler: admission.NewHandler(admission.Create), parts: parts, fault: kubernetes119()}, nil
	}))
	// The no-op module reads no presets, so it runs whatever CRD is served.
	m.Register(NoopModule, func(context.Context, harness.ModuleDeps) (*harness.InProcess, error) {
		return &harness.InProcess{Plugin: noop{Handler: admission.NewHandler(admission.Create)}}, nil
	})
}

// decoratedList lists the decorated mutants.
func decoratedList() []Mutant {
	out := make([]Mutant, len(decoratedMutants))
	for i, d := range decoratedMutants {
		out[i] = d.Mutant
	}
	return out
}

// noop admits every pod as it is.
type noop struct{ *admission.Handler }

func (noop) Admit(context.Context, admission.Attributes, admission.ObjectInterfaces) error {
	return nil
}

// plugin is the reference plug-in's flow with one fault switched on.
type plugin struct {
	*admission.Handler
	mutant string
	parts  harness.ModuleParts
}

func (p *plugin) Admit(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetOperation() != admission.Create || a.GetSubresource() != "" || a.GetResource().GroupResource() != corev1.Resource("pods") {
		return nil
	}
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return nil
	}
	if pod.Annotations[merge.ExcludeAnnotation] == "true" && p.mutant != "ignores-exclude" {
		return nil
	}
	if _, mirror := pod.Annotations[podpreset.MirrorPodAnnotation]; mirror {
		return nil
	}
	presets, err := p.presets(a.GetNamespace())
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	var selected []*v1alpha1.PodPreset
	if p.mutant == "applies-non-matching" {
		selected = presets
	} else if selected, err = merge.Select(pod, presets); err != nil {
		warning.AddWarning(ctx, "", fmt.Sprintf("podpreset: %v", err))
	}
	if len(selected) == 0 {
		return nil
	}
	switch p.mutant {
	case "last-preset-only":
		selected = selected[len(selected)-1:]
	case "reverse-order":
		for i, j := 0, len(selected)-1; i < j; i, j = i+1, j-1 {
			selected[i], selected[j] = selected[j], selected[i]
		}
	}
	result := merge.Apply(pod, selected)
	if len(result.Conflicts) > 0 {
		if p.mutant != "no-conflict-event" {
			p.report(ctx, a, pod, merge.Messages(result.Conflicts))
		}
		switch p.mutant {
		case "partial-apply":
			for _, pp := range selected {
				if r := merge.Apply(pod, []*v1alpha1.PodPreset{pp}); len(r.Conflicts) == 0 {
					*pod = *r.Pod
				}
			}
		case "wipes-env-on-conflict":
			for i := range pod.Spec.Containers {
				pod.Spec.Containers[i].Env = nil
			}
		}
		return nil
	}
	out := result.Pod
	switch p.mutant {
	case "no-annotation":
		for k := range out.Annotations {
			if _, had := pod.Annotations[k]; !had && strings.HasPrefix(k, merge.AnnotationPrefix) {
				delete(out.Annotations, k)
			}
		}
	case "skips-init-containers":
		out.Spec.InitContainers = pod.Spec.InitContainers
	case "prepends":
		for i := range out.Spec.Containers {
			own := &pod.Spec.Containers[i]
			c := &out.Spec.Containers[i]
			c.Env = append(c.Env[len(own.Env):], c.Env[:len(own.Env)]...)
			c.VolumeMounts = append(c.VolumeMounts[len(own.VolumeMounts):], c.VolumeMounts[:len(own.VolumeMounts)]...)
		}
	case "duplicates-identical":
		for i := range out.Spec.Containers {
			for _, pp := range selected {
				for _, e := range defaults.Preset(pp).Spec.Env {
					for _, have := range pod.Spec.Containers[i].Env {
						if have.Name == e.Name && have.Value == e.Value && have.ValueFrom == nil && e.ValueFrom == nil {
							out.Spec.Containers[i].Env = append(out.Spec.Containers[i].Env, e)
						}
					}
				}
			}
		}
	}
	*pod = *out
	return nil
}

// presets returns the presets of the namespace or, for other-namespaces,
// of every namespace, by name.
func (p *plugin) presets(namespace string) ([]*v1alpha1.PodPreset, error) {
	if p.mutant != "other-namespaces" {
		return p.parts.Lister.List(namespace)
	}
	var out []*v1alpha1.PodPreset
	for _, o := range p.parts.Lister.Informer().GetStore().List() {
		if pp, ok := o.(*v1alpha1.PodPreset); ok {
			out = append(out, pp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// report is the reference's conflict report: warnings, and events unless
// the request is a dry run (for events-on-dry-run, also then).
func (p *plugin) report(ctx context.Context, a admission.Attributes, pod *corev1.Pod, messages []string) {
	for _, m := range messages {
		warning.AddWarning(ctx, "", m)
	}
	if a.IsDryRun() && p.mutant != "events-on-dry-run" {
		return
	}
	ref := &corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: a.GetNamespace(), Name: pod.Name, UID: pod.UID}
	if pod.Name == "" {
		owner := metav1.GetControllerOf(pod)
		if owner == nil {
			return
		}
		ref = &corev1.ObjectReference{APIVersion: owner.APIVersion, Kind: owner.Kind, Namespace: a.GetNamespace(), Name: owner.Name, UID: owner.UID}
	}
	recorder := p.parts.Recorder
	if r, ok := recorder.(*podpreset.UIDResolvingRecorder); ok && a.IsDryRun() {
		recorder = r.EventRecorder // a dry-run pod is never stored: record at once
	}
	for _, m := range messages {
		recorder.Event(ref, corev1.EventTypeWarning, podpreset.ConflictReason, m)
	}
}
