package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/compare"
	"presetsim.dev/presetsim/internal/compare/valuediff"
	"presetsim.dev/presetsim/internal/manifest"
)

// PodShouldBe compares the stored pod with the expected one in the
// DocString (harness.md "Comparing pods").
func (s *Scenario) PodShouldBe(ctx context.Context, name string, src manifest.Source, content string) error {
	ns := s.podNamespace(name)
	want, err := s.expected(src, content, ns)
	if err != nil {
		return err
	}
	if want.Namespace != "" {
		ns = want.Namespace
	}
	return s.compareStored(ctx, ns, name, want)
}

// compareStored compares the stored pod with want as Compare does. Reading
// the pod and giving want the backend's defaults (on envtest a dry-run
// create) are two independent requests: made at once, the check waits for
// the slower one only. An error reading the pod comes first.
func (s *Scenario) compareStored(ctx context.Context, ns, name string, want *corev1.Pod) error {
	type result struct {
		pod *corev1.Pod
		err error
	}
	defaulted := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				defaulted <- result{err: fmt.Errorf("defaulting the expected pod panicked: %v", p)}
			}
		}()
		p, err := s.Defaulted(ctx, want)
		defaulted <- result{p, err}
	}()
	got, err := s.getPod(ctx, ns, name)
	d := <-defaulted
	if err != nil {
		return err
	}
	if d.err != nil {
		return d.err
	}
	return s.CompareDefaulted(want, d.pod, got)
}

// expected decodes an expected pod, then expands ${rv:…} in its string
// values: the YAML is parsed as written, so a substitution works quoted or
// not, and an error never quotes text the author did not write.
func (s *Scenario) expected(src manifest.Source, content, ns string) (*corev1.Pod, error) {
	want := &corev1.Pod{}
	if err := manifest.DecodeInto(src, content, s.World().Scheme, want); err != nil {
		return nil, err
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(want)
	if err != nil {
		return nil, err
	}
	if err := s.expandValues(obj, ns); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", src.File, src.Line, err)
	}
	want = &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, want); err != nil {
		return nil, err
	}
	want.Annotations = s.World().Profile.Annotations(want.Annotations)
	return want, nil
}

// Compare compares an expected pod with an actual one as
// "the pod ... should be" does: the expected pod first gets the backend's
// defaults (on envtest, the API server's), and the fields a workload
// controller sets per pod are left out of the actual one unless expected.
// The error is a *compare.Mismatch when the pods differ.
func (s *Scenario) Compare(ctx context.Context, want, got *corev1.Pod) error {
	defaulted, err := s.Defaulted(ctx, want)
	if err != nil {
		return err
	}
	return s.CompareDefaulted(want, defaulted, got)
}

// CompareDefaulted is Compare with the expected pod already defaulted
// (want is the expectation as written, defaulted its Defaulted form).
func (s *Scenario) CompareDefaulted(want, defaulted, got *corev1.Pod) error {
	got = withoutControllerFields(want, got)
	if m := compare.Pods(defaulted, got, compare.Options{AnnotationPrefix: s.World().AnnotationPrefix}); m != nil {
		return m
	}
	return nil
}

// DryRunPodShouldBe compares the pod returned by the last (dry-run) try
// with the expected one.
func (s *Scenario) DryRunPodShouldBe(ctx context.Context, src manifest.Source, content string) error {
	a, err := s.lastAttempt()
	if err != nil {
		return err
	}
	if a.Err != nil || a.Object == nil {
		return fmt.Errorf("the last request returned no object (error: %v)", a.Err)
	}
	got := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(a.Object.Object, got); err != nil {
		return fmt.Errorf("the last request did not return a pod: %w", err)
	}
	want, err := s.expected(src, content, s.logicalOf(got.Namespace))
	if err != nil {
		return err
	}
	return s.Compare(ctx, want, got)
}

// PodShouldNotExist checks the scenario's namespace holds no such pod.
func (s *Scenario) PodShouldNotExist(ctx context.Context, name string) error {
	ns, err := s.Namespace(ctx, s.podNamespace(name))
	if err != nil {
		return err
	}
	_, err = s.Objects().Get(ctx, backend.Pods, ns, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	default:
		return fmt.Errorf("pod %q exists", name)
	}
}

// podAsSubmitted checks the stored pod's spec, labels and annotations equal
// what the scenario submitted.
func (s *Scenario) podAsSubmitted(ctx context.Context, name string) error {
	ns := s.podNamespace(name)
	u, ok := s.submittedObject("Pod", ns, name)
	if !ok {
		return fmt.Errorf("this scenario created no pod %q", name)
	}
	want := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, want); err != nil {
		return err
	}
	return s.compareStored(ctx, ns, name, want)
}

// PodHasAnnotations checks each key has the value (after ${rv:...} expansion).
func (s *Scenario) PodHasAnnotations(ctx context.Context, name string, want map[string]string) error {
	ns := s.podNamespace(name)
	got, err := s.getPod(ctx, ns, name)
	if err != nil {
		return err
	}
	var diffs []string
	want = s.World().Profile.Annotations(want)
	keys := slices.Sorted(maps.Keys(want))
	for _, k := range keys {
		v, err := s.expand(want[k], ns)
		if err != nil {
			return err
		}
		g, ok := got.Annotations[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("metadata.annotations[%s]: want %q, got <absent>", k, v))
		case g != v:
			diffs = append(diffs, fmt.Sprintf("metadata.annotations[%s]: want %q, got %q", k, v, g))
		}
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, "\n"))
	}
	return nil
}

// PodHasNoPresetAnnotations checks the implementation added no annotation
// under its prefix: the pod's own (its exclude annotation, say) do not
// count, nor does the exclude key on a pod the scenario did not submit
// itself (a controller's, from its template).
func (s *Scenario) PodHasNoPresetAnnotations(ctx context.Context, name string) error {
	ns := s.podNamespace(name)
	got, err := s.getPod(ctx, ns, name)
	if err != nil {
		return err
	}
	own := map[string]string{s.World().Profile.Spec.Annotations.Exclude: ""}
	if submitted, ok := s.submittedObject("Pod", ns, name); ok {
		own = submitted.GetAnnotations()
	}
	var found []string
	for _, k := range slices.Sorted(maps.Keys(got.Annotations)) {
		if _, mine := own[k]; mine {
			continue
		}
		if strings.HasPrefix(k, s.World().AnnotationPrefix) {
			found = append(found, fmt.Sprintf("%s: %q", k, got.Annotations[k]))
		}
	}
	if len(found) > 0 {
		return fmt.Errorf("pod %q has %s annotations:\n  %s", name, s.World().PresetKind(), strings.Join(found, "\n  "))
	}
	return nil
}

// ComparePod compares an expected pod with an actual one of the World as
// "the pod ... should be" does, outside a scenario (the differential run
// compares the pods of two backends with it). The error is a
// *compare.Mismatch when the pods differ.
func ComparePod(ctx context.Context, w *harness.World, want, got *corev1.Pod) error {
	return New(w).Compare(ctx, want, got)
}

// ObjectAsSubmitted checks that an object the scenario created was not
// changed: for a pod its spec, labels and annotations; for other kinds its
// spec and labels, and no annotation under the module's prefix.
func (s *Scenario) ObjectAsSubmitted(ctx context.Context, kind, name string) error {
	gvk, mapping, err := s.kindOf(kind)
	if err != nil {
		return err
	}
	if gvk.Kind == "Pod" && gvk.Group == "" {
		return s.podAsSubmitted(ctx, name)
	}
	logical := s.namespaceOf(gvk.Kind, name)
	submitted, ok := s.submittedObject(gvk.Kind, logical, name)
	if !ok {
		return fmt.Errorf("this scenario created no %s %q", gvk.Kind, name)
	}
	got, err := s.Objects().Get(ctx, mapping.Resource, submitted.GetNamespace(), name)
	if err != nil {
		return s.Failed(err, "unable to get %s %q", gvk.Kind, name)
	}
	defaulted, err := s.unadmitted(ctx, mapping.Resource, submitted)
	if err != nil {
		return fmt.Errorf("unable to default the submitted %s (dry-run create: %s)", gvk.Kind, s.logical(err.Error()))
	}
	var diffs []valuediff.Difference
	diffs = append(diffs, valuediff.Values("metadata.labels", submitted.GetLabels(), got.GetLabels())...)
	for k, v := range got.GetAnnotations() {
		if _, ok := submitted.GetAnnotations()[k]; !ok && strings.HasPrefix(k, s.World().AnnotationPrefix) {
			diffs = append(diffs, valuediff.Difference{Path: "metadata.annotations[" + k + "]", Want: "<absent>", Got: fmt.Sprintf("%q", v)})
		}
	}
	diffs = append(diffs, valuediff.Values("spec", defaulted.Object["spec"], got.Object["spec"])...)
	if len(diffs) > 0 {
		return &ObjectChanged{Kind: gvk.Kind, Name: name, Differences: diffs}
	}
	return nil
}

// unadmitted is an object as the API server would store it where no
// implementation is registered: a dry-run create in the defaulting
// namespace.
func (s *Scenario) unadmitted(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	dry := u.DeepCopy()
	dry.SetNamespace(s.World().DefaultingNamespace)
	return s.Objects().Create(ctx, gvr, dry, backend.CreateOptions{DryRun: true})
}

// CreatableUnadmitted fails when the API server would refuse obj even
// where no implementation is registered.
func (s *Scenario) CreatableUnadmitted(ctx context.Context, obj runtime.Object) error {
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: raw}
	mapping, err := s.cluster.Mapper().RESTMapping(u.GroupVersionKind().GroupKind(), u.GroupVersionKind().Version)
	if err != nil {
		return err
	}
	_, err = s.unadmitted(ctx, mapping.Resource, u)
	return err
}

// ObjectChanged is an object other than a pod (a workload) that is not as
// the scenario submitted it, or not as the harness's update of it would
// leave it: its template changed breaks R2.6.
type ObjectChanged struct {
	Kind, Name string
	// Update is the harness's update of the object that the
	// implementation changed ("scaling", "rollout"); empty for its
	// creation.
	Update string
	// MadeBy names the object's controller when a controller made it
	// (`Deployment "web"` for its ReplicaSet), not the scenario.
	MadeBy string
	// Refused is the API server's refusal of the object, which it would
	// have stored without the implementation; nil when it stored it.
	Refused     error
	Differences []valuediff.Difference
}

func (e *ObjectChanged) Error() string {
	if e.Refused != nil {
		return fmt.Sprintf("%s %q was refused, which the API server takes without the implementation: %v", e.Kind, e.Name, e.Refused)
	}
	lines := make([]string, len(e.Differences))
	for i, d := range e.Differences {
		lines[i] = d.String()
	}
	switch {
	case e.Update != "":
		return fmt.Sprintf("%s %q was changed at admission of its %s:\n%s", e.Kind, e.Name, e.Update, strings.Join(lines, "\n"))
	case e.MadeBy != "":
		return fmt.Sprintf("%s %q, which %s made from its template, was changed at admission:\n%s", e.Kind, e.Name, e.MadeBy, strings.Join(lines, "\n"))
	}
	return fmt.Sprintf("%s %q is not as submitted:\n%s", e.Kind, e.Name, strings.Join(lines, "\n"))
}
