package admission

import (
	"context"
	"errors"
	"fmt"
	"io"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/tools/record"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// PluginName is the name under which the plug-in registers.
const PluginName = "PodPreset"

// ConflictReason is the reason of the event recorded on a conflict (R4.3):
// conflict.Reason.
const ConflictReason = conflict.Reason

// MirrorPodAnnotation marks a mirror pod (R2.5); it equals
// corev1.MirrorPodAnnotationKey.
const MirrorPodAnnotation = corev1.MirrorPodAnnotationKey

// Lister lists the PodPresets of one namespace.
type Lister interface {
	List(namespace string) ([]*v1alpha1.PodPreset, error)
}

// WantsPodPresetLister is implemented by plug-ins that need a Lister; an
// admission initializer (or the caller) sets it before the first request.
type WantsPodPresetLister interface {
	SetPodPresetLister(Lister)
}

// WantsEventRecorder is implemented by plug-ins that record events.
type WantsEventRecorder interface {
	SetEventRecorder(record.EventRecorder)
}

// Register registers the plug-in under PluginName. It has no configuration.
func Register(plugins *admission.Plugins) { plugins.Register(PluginName, Factory) }

// Factory makes the plug-in as admission.Plugins does; it has no
// configuration. A PluginInitializer then hands it its Lister (and
// EventRecorder, and ReadyFunc: the lister's cache has synced).
func Factory(io.Reader) (admission.Interface, error) { return New(), nil }

// Plugin injects PodPresets into pods at creation.
type Plugin struct {
	*admission.Handler
	lister   Lister
	recorder record.EventRecorder
}

var (
	_ admission.MutationInterface       = &Plugin{}
	_ admission.InitializationValidator = &Plugin{}
	_ WantsPodPresetLister              = &Plugin{}
	_ WantsEventRecorder                = &Plugin{}
)

// New returns a plug-in that handles CREATE. Set a Lister (and, to record
// events, an EventRecorder) before use.
func New() *Plugin {
	return &Plugin{Handler: admission.NewHandler(admission.Create)}
}

// SetPodPresetLister implements WantsPodPresetLister.
func (p *Plugin) SetPodPresetLister(l Lister) { p.lister = l }

// SetEventRecorder implements WantsEventRecorder. Without a recorder,
// conflicts are reported only as admission warnings.
func (p *Plugin) SetEventRecorder(r record.EventRecorder) { p.recorder = r }

// ValidateInitialization checks that a Lister was set.
func (p *Plugin) ValidateInitialization() error {
	if p.lister == nil {
		return errors.New("podpreset admission: missing PodPreset lister")
	}
	return nil
}

// Admit implements admission.MutationInterface.
func (p *Plugin) Admit(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	pod, ok := podToMutate(a)
	if !ok {
		return nil
	}
	// As the API server's own plug-ins do: no decision before the presets
	// are listed (a ReadyFunc is set by the initializer, if any).
	if !p.WaitForReady() {
		return admission.NewForbidden(a, errors.New("not yet ready to handle request: the PodPreset cache has not synced"))
	}
	all, err := p.lister.List(a.GetNamespace())
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("unable to list PodPresets of namespace %q: %w", a.GetNamespace(), err))
	}
	selected, err := merge.Select(pod, all)
	if err != nil {
		// A preset with a selector that cannot be parsed is skipped, as the
		// API server would not have stored one; the others still apply.
		warning.AddWarning(ctx, "", fmt.Sprintf("podpreset: %v", err))
	}
	if len(selected) == 0 {
		return nil
	}
	result := merge.Apply(pod, selected)
	if len(result.Conflicts) > 0 {
		p.reportConflicts(ctx, a, pod, conflict.Reports(result.Conflicts))
		return nil
	}
	*pod = *result.Pod
	return nil
}

// podToMutate is the guard of R2: it returns the pod of a request that the
// plug-in must mutate, or false for every request it must leave alone.
func podToMutate(a admission.Attributes) (*corev1.Pod, bool) {
	if a.GetOperation() != admission.Create || a.GetSubresource() != "" {
		return nil, false
	}
	if a.GetResource().GroupResource() != corev1.Resource("pods") {
		return nil, false
	}
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return nil, false
	}
	if pod.Annotations[merge.ExcludeAnnotation] == "true" {
		return nil, false
	}
	if _, mirror := pod.Annotations[MirrorPodAnnotation]; mirror {
		return nil, false
	}
	return pod, true
}

// reportConflicts returns each report's message as an admission warning
// and, unless the request is a dry run, records its event on the pod or its
// controller owner (R4.3).
func (p *Plugin) reportConflicts(ctx context.Context, a admission.Attributes, pod *corev1.Pod, reports []conflict.Report) {
	for _, r := range reports {
		warning.AddWarning(ctx, "", r.Message())
	}
	if p.recorder == nil || a.IsDryRun() {
		return
	}
	if ref := conflict.Target(pod, a.GetNamespace()); ref != nil {
		conflict.Record(p.recorder, ref, reports)
	}
}
