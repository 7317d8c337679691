package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/harness/compare"
	"presetsim.dev/presetsim/harness/manifest"
	"presetsim.dev/presetsim/presets/merge"
)

// GetPod returns a pod of the scenario by logical namespace and name.
func (s *Scenario) GetPod(ctx context.Context, logicalNS, name string) (*corev1.Pod, error) {
	ns, err := s.Namespace(ctx, logicalNS)
	if err != nil {
		return nil, err
	}
	u, err := s.cluster.Get(ctx, backend.Pods, ns, name)
	if err != nil {
		return nil, s.failed(err, "unable to get pod %q", name)
	}
	return backend.ToPod(u)
}

// PodShouldBe compares the stored pod with the expected one in the
// DocString (harness.md "Comparing pods").
func (s *Scenario) PodShouldBe(ctx context.Context, name string, src manifest.Source, content string) error {
	ns := s.podNamespace(name)
	want, err := s.expectedPod(src, content, ns)
	if err != nil {
		return err
	}
	if want.Namespace != "" {
		ns = want.Namespace
	}
	got, err := s.GetPod(ctx, ns, name)
	if err != nil {
		return err
	}
	return s.comparePod(ctx, want, got)
}

// expectedPod decodes an expected pod, then expands ${rv:…} in its string
// values: the YAML is parsed as written, so a substitution works quoted or
// not, and an error never quotes text the author did not write.
func (s *Scenario) expectedPod(src manifest.Source, content, ns string) (*corev1.Pod, error) {
	want := &corev1.Pod{}
	if err := manifest.DecodeInto(src, content, s.w.Scheme, want); err != nil {
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
	want.Annotations = s.w.Profile.Annotations(want.Annotations)
	return want, nil
}

// comparePod compares an expected pod with an actual one as
// "the pod ... should be" does: the expected pod first gets the backend's
// defaults (on envtest, the API server's), and the fields a workload
// controller sets per pod are left out of the actual one unless expected.
// The error is a *compare.Mismatch when the pods differ.
func (s *Scenario) comparePod(ctx context.Context, want, got *corev1.Pod) error {
	defaulted, err := s.defaultPod(ctx, want)
	if err != nil {
		return err
	}
	got = withoutControllerFields(want, got)
	if m := compare.Pods(defaulted, got, compare.Options{AnnotationPrefix: s.w.AnnotationPrefix}); m != nil {
		return m
	}
	return nil
}

// defaultPod gives an expected pod the backend's defaults by a dry-run
// create in the defaulting namespace, where no module under test runs.
func (s *Scenario) defaultPod(ctx context.Context, want *corev1.Pod) (*corev1.Pod, error) {
	p := want.DeepCopy()
	p.Namespace, p.Name, p.GenerateName = s.w.DefaultingNamespace, "", "expected-"
	p.OwnerReferences, p.ResourceVersion, p.UID, p.CreationTimestamp = nil, "", "", metav1.Time{}
	// No module under test is registered for the defaulting namespace, and
	// it holds no presets; on an existing cluster the implementation may
	// still see it, so the pod also opts out. It keeps the expected
	// annotations, as some change what the API server defaults (a mirror
	// pod gets no service account); they are set back as expected below.
	p.Annotations = maps.Clone(want.Annotations)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[merge.ExcludeAnnotation] = "true"
	p.Annotations[s.w.Profile.Spec.Annotations.Exclude] = "true"
	p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		return nil, err
	}
	created, err := s.cluster.Create(ctx, backend.Pods, &unstructured.Unstructured{Object: u}, backend.CreateOptions{DryRun: true})
	if err != nil {
		return nil, fmt.Errorf("the expected pod is not valid (dry-run create: %v)", err)
	}
	got, err := backend.ToPod(created)
	if err != nil {
		return nil, err
	}
	got.Labels, got.Annotations = want.Labels, want.Annotations
	return got, nil
}

// DryRunPodShouldBe compares the pod returned by the last (dry-run) try
// with the expected one.
func (s *Scenario) DryRunPodShouldBe(ctx context.Context, src manifest.Source, content string) error {
	a, err := s.LastAttempt()
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
	want, err := s.expectedPod(src, content, s.logicalOf(got.Namespace))
	if err != nil {
		return err
	}
	return s.comparePod(ctx, want, got)
}

// PodShouldNotExist checks the scenario's namespace holds no such pod.
func (s *Scenario) PodShouldNotExist(ctx context.Context, name string) error {
	ns, err := s.Namespace(ctx, s.podNamespace(name))
	if err != nil {
		return err
	}
	_, err = s.cluster.Get(ctx, backend.Pods, ns, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	default:
		return fmt.Errorf("pod %q exists", name)
	}
}

// PodAsSubmitted checks the stored pod's spec, labels and annotations equal
// what the scenario submitted.
func (s *Scenario) PodAsSubmitted(ctx context.Context, name string) error {
	ns := s.podNamespace(name)
	u, ok := s.submitted[objectKey{"Pod", ns, name}]
	if !ok {
		return fmt.Errorf("this scenario created no pod %q", name)
	}
	want := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, want); err != nil {
		return err
	}
	got, err := s.GetPod(ctx, ns, name)
	if err != nil {
		return err
	}
	return s.comparePod(ctx, want, got)
}

// PodHasAnnotations checks each key has the value (after ${rv:...} expansion).
func (s *Scenario) PodHasAnnotations(ctx context.Context, name string, want map[string]string) error {
	ns := s.podNamespace(name)
	got, err := s.GetPod(ctx, ns, name)
	if err != nil {
		return err
	}
	var diffs []string
	want = s.w.Profile.Annotations(want)
	keys := slices.Sorted(maps.Keys(want))
	for _, k := range keys {
		v, err := s.Expand(want[k], ns)
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
	got, err := s.GetPod(ctx, ns, name)
	if err != nil {
		return err
	}
	own := map[string]string{s.w.Profile.Spec.Annotations.Exclude: ""}
	if submitted, ok := s.submitted[objectKey{"Pod", ns, name}]; ok {
		own = submitted.GetAnnotations()
	}
	var found []string
	for _, k := range slices.Sorted(maps.Keys(got.Annotations)) {
		if _, mine := own[k]; mine {
			continue
		}
		if strings.HasPrefix(k, s.w.AnnotationPrefix) {
			found = append(found, fmt.Sprintf("%s: %q", k, got.Annotations[k]))
		}
	}
	if len(found) > 0 {
		return fmt.Errorf("pod %q has %s annotations:\n  %s", name, s.w.PresetKind(), strings.Join(found, "\n  "))
	}
	return nil
}

// Pods returns every pod in the scenario's namespaces, with logical
// namespace names, sorted by namespace and name: what the scenario left
// behind, for comparing backends.
func (s *Scenario) Pods(ctx context.Context) ([]corev1.Pod, error) {
	var out []corev1.Pod
	for logical, physical := range s.physical {
		pods, err := s.pods(ctx, physical)
		if err != nil {
			return nil, fmt.Errorf("unable to list the pods of namespace %s: %w", logical, err)
		}
		for i := range pods {
			pods[i].Namespace = logical
		}
		out = append(out, pods...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// ComparePod compares an expected pod with an actual one of the World as
// "the pod ... should be" does, outside a scenario (the differential run
// compares the pods of two backends with it). The error is a
// *compare.Mismatch when the pods differ.
func ComparePod(ctx context.Context, w *harness.World, want, got *corev1.Pod) error {
	return New(w).comparePod(ctx, want, got)
}
