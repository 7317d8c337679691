package implementation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/presets/policy"
)

// ErrUnseen is what ProbePreset returns when the probe could not show the
// preset: the wait ended, but it measured no propagation (World.AwaitPreset
// reads it as no error).
var ErrUnseen = errors.New("the probe did not show the preset")

// DefaultSyncTimeout bounds ProbePreset when the implementation sets none.
const DefaultSyncTimeout = 2 * time.Second

// ProbePreset waits, for at most timeout, until a dry-run pod that the
// preset's selector selects comes back with the preset's annotation: the
// webhook's cache (or the API server's policy) has the preset. It is
// WaitForPreset for an implementation that cannot say so itself. A preset
// the probe cannot show (a module that writes no annotation, a preset that
// conflicts with another the probe pod matches) costs the whole timeout and
// is no failure (ErrUnseen): the scenario's own steps judge the
// implementation.
//
// With resourceVersion set, the annotation must also carry that version or
// a later one: an implementation that writes the version (the policy, whose
// older compilation still applies the preset at its older version) is then
// known to have the preset as it is now.
//
// With d set (the harness sees the implementation's requests), the probe
// pods are named, and a probe the API server admitted without sending it
// to the implementation ends the wait at once (ErrUnseen): its
// registration leaves the namespace's pods out, and the scenario's own
// checks say so (R5.4).
func ProbePreset(ctx context.Context, c backend.Objects, p *profile.Profile, namespace, name, resourceVersion string, timeout time.Duration, d Deliveries) error {
	return probe(ctx, c, p, namespace, name, resourceVersion, timeout, nil, d)
}

// ProbePresetExpected is ProbePreset for an implementation whose outcome is
// known (the policy: the model's): shows says whether the probe pod should
// come back with the preset's annotation, given the namespace's presets. When
// it should not (the preset conflicts with another for that pod), there is
// nothing to wait for; when it should, not seeing it within timeout is an
// error, not a silent start.
func ProbePresetExpected(ctx context.Context, c backend.Objects, p *profile.Profile, namespace, name, resourceVersion string, timeout time.Duration, shows func(probe *corev1.Pod) bool) error {
	return probe(ctx, c, p, namespace, name, resourceVersion, timeout, shows, nil)
}

// ProbePresetModelled is ProbePreset for an implementation the model
// describes (with the profile's options) but whose probes are all the
// harness sees of its cache (an external webhook): when the model says the
// probe pod does not come back with the preset (it conflicts with another
// preset for that pod), one probe is sent, and then the wait is waited out
// with no more of them (ErrUnseen, as ProbePreset's would end). The wait is
// ProbePreset's; only its probes are spared: each is an admission through
// the implementation, and a wait of seconds polled up to every 100 ms was
// three quarters of the probes of a run of generated cases (a fifth of its
// requests to the API server). When the implementation does show such a
// preset, it differs from the model, which its scenarios judge.
func ProbePresetModelled(ctx context.Context, c backend.Objects, p *profile.Profile, namespace, name string, timeout time.Duration, d Deliveries) error {
	shows := func(probe *corev1.Pod) bool {
		ok, err := ModelShows(ctx, c, p, namespace, name, probe)
		return err != nil || ok // unknown: probed as ProbePreset does
	}
	return probeWith(ctx, c, p, namespace, name, "", timeout, shows, d, true)
}

// ModelShows says whether the model, with the profile's options, gives
// probe the preset namespace/name: the namespace's presets as c lists them
// now, and the probe with the API server's defaults.
func ModelShows(ctx context.Context, c backend.Objects, p *profile.Profile, namespace, name string, probe *corev1.Pod) (bool, error) {
	gvk := p.PresetGVK()
	mapping, err := c.Mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, err
	}
	list, err := c.List(ctx, mapping.Resource, namespace)
	if err != nil {
		return false, err
	}
	presets, err := p.CanonicalPresets(list)
	if err != nil {
		return false, err
	}
	outcomes := model.Admit(model.Admission{Presets: presets, Pod: defaults.Pod(probe)}, p.Options())
	return len(outcomes) == 1 && outcomes[0].Pod != nil && outcomes[0].Pod.Annotations[merge.AnnotationKey(name)] != "", nil
}

func probe(ctx context.Context, c backend.Objects, p *profile.Profile, namespace, name, resourceVersion string, timeout time.Duration, shows func(*corev1.Pod) bool, d Deliveries) error {
	return probeWith(ctx, c, p, namespace, name, resourceVersion, timeout, shows, d, false)
}

// probeWith probes; shows, when set, says whether the probe pod should
// come back with the preset. When it should not: if modelled, after a first
// probe that did not show it, the rest of timeout is waited out with no
// more probes (ErrUnseen); if not, nothing is waited for, and not seeing a
// preset that should show is an error.
func probeWith(ctx context.Context, c backend.Objects, p *profile.Profile, namespace, name, resourceVersion string, timeout time.Duration, shows func(*corev1.Pod) bool, d Deliveries, modelled bool) error {
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
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, selector); err != nil {
		return nil
	}
	labels, ok := Satisfying(selector)
	if !ok {
		return nil
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: "presetsim-probe-", Namespace: namespace, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "presetsim-probe", Image: "probe"}}},
	}
	if shows != nil && !modelled && !shows(pod.DeepCopy()) {
		return nil
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return err
	}
	var last string
	probes := 0
	err = poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		// Asked once, after a first probe (which shows most presets): the
		// model's answer costs a list of the namespace's presets.
		if probes++; modelled && probes == 2 && !shows(pod.DeepCopy()) {
			<-ctx.Done()
			return false, ctx.Err()
		}
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
		if d != nil {
			// A name the request carries, for the implementation's
			// record of what it was sent (a generated one is not in it).
			u.SetGenerateName("")
			u.SetName(pod.GenerateName + utilrand.String(8))
		}
		got, err := c.Create(ctx, backend.Pods, u, backend.CreateOptions{DryRun: true})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if d != nil {
			if times, known := d.PodCreateSent(namespace, u.GetName()); known && times == 0 {
				return false, ErrUnseen
			}
		}
		v, ok := got.GetAnnotations()[p.AppliedKey(name)]
		last = fmt.Sprintf("annotation %q", v)
		return ok && (resourceVersion == "" || NotOlder(v, resourceVersion)), nil
	})
	switch {
	case err == nil || errors.Is(err, ErrUnseen):
		return err
	case shows != nil && !modelled:
		return fmt.Errorf("a pod the preset %s/%s selects does not get it at resourceVersion %s within %s (last: %s): %w", namespace, name, resourceVersion, timeout, last, err)
	case wait.Interrupted(err) && ctx.Err() == nil:
		return ErrUnseen
	}
	return err
}

// maxProbePause bounds the pause between two probes.
const maxProbePause = 100 * time.Millisecond

// poll probes at once, then after 5 ms, each pause half as long again as
// the one before, up to maxProbePause, until probe returns true or an
// error, or timeout has passed. A probe is a pod created through the API
// server's admission chain, and a policy takes up to the API server's
// policy refresh (a second) to apply: probing every 5 ms throughout, each
// of a run's waits kept the API server busy with probes (fuzz of the
// policy on envtest, 8 cases at once: the API server used 1.7 s of CPU per
// case). The pauses grow so that a quick implementation (a webhook's
// informer, the plug-ins offline) is seen within milliseconds, a slow one
// within a tenth of a second.
func poll(ctx context.Context, timeout time.Duration, probe wait.ConditionWithContextFunc) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pause := 5 * time.Millisecond
	for {
		if ok, err := probe(ctx); err != nil || ok {
			return err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		pause = min(pause*3/2, maxProbePause)
	}
}

// CompileWait is how long ProbeCompiled waits at least: the API server
// compiles written policies in one goroutine, CPU-bound, and on a loaded
// host (a single-node kind cluster running three conformance shards) a
// change has taken more than 10 s to apply.
const CompileWait = 30 * time.Second

// ProbeCompiled waits, for at most timeout (CompileWait when shorter),
// until an implementation that reports what it was compiled from
// (presets/policy: a mutating policy and a warning policy that the API
// server compiles apart, each in its own time) applies the preset at
// resourceVersion or later in both: a dry-run pod with
// policy.ProbeAnnotation comes back with that annotation set to the
// presets of the mutating policy, and with a warning naming those of the
// warning policy (only when warnings is set). Unlike ProbePreset, it waits
// as well for a preset that conflicts with another.
func ProbeCompiled(ctx context.Context, c backend.Objects, namespace, name, resourceVersion string, timeout time.Duration, warnings bool) error {
	timeout = max(timeout, CompileWait)
	probe := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{GenerateName: "presetsim-probe-", Namespace: namespace,
			Annotations: map[string]string{policy.ProbeAnnotation: "true"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "presetsim-probe", Image: "probe"}}},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(probe)
	if err != nil {
		return err
	}
	has := func(compiled string) bool {
		rv, ok := policy.CompiledVersion(compiled, name)
		return ok && (resourceVersion == "" || NotOlder(rv, resourceVersion))
	}
	var (
		mutating string
		seen     []string
		last     error
	)
	err = poll(ctx, timeout, func(ctx context.Context) (bool, error) {
		w := &backend.Warnings{}
		got, err := c.Create(ctx, backend.Pods, &unstructured.Unstructured{Object: obj}, backend.CreateOptions{DryRun: true, Warnings: w})
		if last = err; err != nil {
			return false, nil
		}
		mutating, seen = got.GetAnnotations()[policy.ProbeAnnotation], w.List()
		if !has(mutating) {
			return false, nil
		}
		if !warnings {
			return true, nil
		}
		for _, text := range seen {
			if _, compiled, ok := strings.Cut(text, policy.ProbeMessage); ok && has(compiled) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		if last != nil {
			err = fmt.Errorf("%w; the probe pod was refused: %v", err, last)
		}
		return fmt.Errorf("the API server does not apply PodPreset %s/%s at resourceVersion %s yet: a probe pod shows the mutating policy compiled from %q and the warnings %q: %w",
			namespace, name, resourceVersion, mutating, seen, err)
	}
	return nil
}

// Satisfying returns labels that the selector selects: its matchLabels, and
// for each expression a label that makes it true (In: the key with its
// first value; Exists: the key with the value "probe"; NotIn and
// DoesNotExist: no label). ok is false when no labels can (an In with no
// values, or expressions that contradict each other).
func Satisfying(s *metav1.LabelSelector) (_ map[string]string, ok bool) {
	out := map[string]string{}
	for k, v := range s.MatchLabels {
		out[k] = v
	}
	for _, e := range s.MatchExpressions {
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			if len(e.Values) == 0 {
				return nil, false
			}
			if _, set := out[e.Key]; !set {
				out[e.Key] = e.Values[0]
			}
		case metav1.LabelSelectorOpExists:
			if _, set := out[e.Key]; !set {
				out[e.Key] = "probe"
			}
		}
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil || !sel.Matches(labels.Set(out)) {
		return nil, false
	}
	return out, true
}
