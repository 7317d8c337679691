package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"

	"presetsim.dev/presetsim/harness/compare"
	"presetsim.dev/presetsim/harness/manifest"
	"presetsim.dev/presetsim/presets/merge"
)

// Scenario is one scenario's view of the World: its own namespaces, what it
// submitted, and the outcome of its last request. It is not safe for
// concurrent use; each scenario has its own.
type Scenario struct {
	w  *World
	id string

	physical  map[string]string // logical → physical namespace
	submitted map[objectKey]*unstructured.Unstructured
	versions  map[objectKey]string // PodPreset resourceVersions, for ${rv:name}
	last      *Attempt

	nodesChanged bool     // the scenario changed the node count
	created      podOrder // pods in creation order, on real nodes

	notesMu sync.Mutex
	notes   []string // what the run should tell the reader, though no step failed
}

// Notes are what the scenario's steps want the reader to know although no
// step failed: a comparison that could not be made on this backend, say.
func (s *Scenario) Notes() []string {
	s.notesMu.Lock()
	defer s.notesMu.Unlock()
	return slices.Clone(s.notes)
}

func (s *Scenario) note(format string, args ...any) {
	s.notesMu.Lock()
	defer s.notesMu.Unlock()
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

// objectKey names an object by kind, logical namespace and name.
type objectKey struct{ kind, namespace, name string }

// Attempt is the outcome of a "try" step.
type Attempt struct {
	Err      error
	Warnings []string
	// Object is what the API server returned for the last object created.
	Object *unstructured.Unstructured
	// Unvalidated is set when the backend did not run the API server's
	// validation: a request that succeeded might have been rejected.
	Unvalidated bool
	// Backend is the backend the request went to.
	Backend Backend
}

// World returns the World the scenario runs in.
func (s *Scenario) World() *World { return s.w }

// NewScenario returns a scenario with no namespaces yet.
func (w *World) NewScenario() *Scenario {
	return &Scenario{
		w:         w,
		id:        utilrand.String(5),
		physical:  map[string]string{},
		submitted: map[objectKey]*unstructured.Unstructured{},
		versions:  map[objectKey]string{},
	}
}

// Namespace returns the physical namespace for a logical one, creating it on
// first use.
func (s *Scenario) Namespace(ctx context.Context, logical string) (string, error) {
	if logical == "" {
		logical = metav1.NamespaceDefault
	}
	if p, ok := s.physical[logical]; ok {
		return p, nil
	}
	base := logical
	if len(base) > 50 {
		base = base[:50]
	}
	p := base + "-" + s.id
	labels := map[string]string{RunLabel: s.w.RunID, AdmissionLabel: s.w.RunID, LogicalLabel: base}
	if err := s.w.cluster.createNamespace(ctx, p, labels); err != nil {
		return "", err
	}
	if s.w.cluster.realKubelet() {
		if err := s.created.watchNamespace(s.w.cluster, p); err != nil {
			return "", fmt.Errorf("unable to watch the pods of namespace %s: %w", p, err)
		}
	}
	s.physical[logical] = p
	return p, nil
}

// Logical replaces physical namespace names in a message by logical ones, so
// reports read like the feature file.
func (s *Scenario) Logical(msg string) string {
	for l, p := range s.physical {
		msg = strings.ReplaceAll(msg, p, l)
	}
	return msg
}

// Create creates every object of a DocString, in order; kind, when not
// empty, is the kind each must have ("Given the PodPreset:").
func (s *Scenario) Create(ctx context.Context, src manifest.Source, content, kind string) error {
	objs, err := s.decode(src, content, kind)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if _, err := s.create(ctx, o, nil); err != nil {
			return fmt.Errorf("%s:%d: %w", src.File, o.Line, err)
		}
	}
	return nil
}

// TryCreate is Create that records the outcome for a later Then step
// instead of failing; bad YAML still fails the step. With dryRun, the
// objects are created with a server-side dry run: admitted and returned,
// never stored.
func (s *Scenario) TryCreate(ctx context.Context, src manifest.Source, content string, dryRun bool) error {
	objs, err := s.decode(src, content, "")
	if err != nil {
		return err
	}
	s.last = &Attempt{Unvalidated: !s.w.cluster.validates(), Backend: s.w.Backend}
	warnings := &Warnings{}
	opts := &createOptions{warnings: warnings, dryRun: dryRun}
	for _, o := range objs {
		created, err := s.create(ctx, o, opts)
		if err != nil {
			s.last.Err = err
			break
		}
		s.last.Object = created
	}
	s.last.Warnings = warnings.List()
	return nil
}

// TryUpdatePreset replaces the PodPreset name (in the DocString's logical
// namespace) with the DocString's object and records the outcome.
func (s *Scenario) TryUpdatePreset(ctx context.Context, name string, src manifest.Source, content string) error {
	objs, err := s.decode(src, content, "PodPreset")
	if err != nil {
		return err
	}
	if len(objs) != 1 {
		return fmt.Errorf("%s:%d: expected one PodPreset, got %d objects", src.File, src.Line, len(objs))
	}
	logical := namespaceOr(objs[0].Raw.GetNamespace())
	ns, err := s.Namespace(ctx, logical)
	if err != nil {
		return err
	}
	u, gvr, err := s.w.presetObject(objs[0].Raw)
	if err != nil {
		return err
	}
	current, err := s.w.cluster.get(ctx, gvr, ns, name)
	if err != nil {
		return fmt.Errorf("unable to get %s %q: %w", s.w.presetKind(), name, err)
	}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetResourceVersion(current.GetResourceVersion())
	warnings := &Warnings{}
	updated, err := s.w.cluster.update(ctx, gvr, u, warnings)
	s.last = &Attempt{Err: err, Warnings: warnings.List(), Unvalidated: !s.w.cluster.validates(), Backend: s.w.Backend}
	if err == nil {
		key := objectKey{"PodPreset", logical, name}
		s.versions[key] = updated.GetResourceVersion()
		return s.w.WaitForPreset(ctx, ns, name, updated.GetResourceVersion())
	}
	return nil
}

// failed describes a backend error in the feature file's terms: with
// logical namespace names, after what the step was doing. An
// UnsupportedError is returned as it is, so the step is reported as
// unsupported.
func (s *Scenario) failed(err error, format string, args ...any) error {
	if u, ok := IsUnsupported(err); ok {
		return u
	}
	return fmt.Errorf("%s: %s", fmt.Sprintf(format, args...), s.Logical(err.Error()))
}

// LastAttempt returns the outcome of the last try step.
func (s *Scenario) LastAttempt() (*Attempt, error) {
	if s.last == nil {
		return nil, errors.New("no request was tried yet (use a \"When I try to ...\" step first)")
	}
	return s.last, nil
}

func (s *Scenario) decode(src manifest.Source, content, kind string) ([]manifest.Object, error) {
	objs, err := manifest.Decode(src, content, s.w.Scheme)
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("%s:%d: the DocString holds no object", src.File, src.Line)
	}
	if kind != "" {
		if len(objs) != 1 {
			return nil, fmt.Errorf("%s:%d: expected one %s, got %d objects", src.File, src.Line, kind, len(objs))
		}
		if objs[0].GVK.Kind != kind {
			return nil, fmt.Errorf("%s:%d: expected a %s, got a %s", src.File, objs[0].Line, kind, objs[0].GVK.Kind)
		}
	}
	return objs, nil
}

// create creates one object, as written, in its scenario namespace and
// records it.
func (s *Scenario) create(ctx context.Context, o manifest.Object, opts *createOptions) (*unstructured.Unstructured, error) {
	if opts == nil {
		opts = &createOptions{}
	}
	u := o.Raw.DeepCopy()
	gvk := o.GVK
	switch {
	case isPreset(gvk):
		// Written in canonical terms; created in the implementation's.
		impl, err := s.w.Profile.Preset(u)
		if err != nil {
			return nil, err
		}
		u, gvk = impl, s.w.Profile.PresetGVK()
	case gvk.Group == "" && gvk.Kind == "Pod":
		s.w.translatePodAnnotations(u)
	}
	mapping, err := s.w.cluster.mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("unknown kind %s: %w", gvk, err)
	}
	logical := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		logical = namespaceOr(u.GetNamespace())
		ns, err := s.Namespace(ctx, logical)
		if err != nil {
			return nil, err
		}
		u.SetNamespace(ns)
	}
	key := objectKey{o.GVK.Kind, logical, u.GetName()}
	submitted := u.DeepCopy()
	created, err := s.w.cluster.create(ctx, mapping.Resource, u, *opts)
	if err != nil {
		return nil, s.failed(err, "unable to create %s %q", o.GVK.Kind, u.GetName())
	}
	if opts.dryRun {
		return created, nil
	}
	s.submitted[key] = submitted
	if isPreset(o.GVK) {
		s.versions[key] = created.GetResourceVersion()
		if err := s.w.WaitForPreset(ctx, created.GetNamespace(), created.GetName(), created.GetResourceVersion()); err != nil {
			return nil, err
		}
	}
	return created, nil
}

func namespaceOr(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

var rvPattern = regexp.MustCompile(`\$\{rv:([^}]*)\}`)

// Expand replaces ${rv:<preset>} by the resourceVersion of the scenario's
// preset of that name (in the logical namespace ns).
func (s *Scenario) Expand(text, ns string) (string, error) {
	var missing []string
	out := rvPattern.ReplaceAllStringFunc(text, func(m string) string {
		name := rvPattern.FindStringSubmatch(m)[1]
		v, ok := s.versions[objectKey{"PodPreset", namespaceOr(ns), name}]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("${rv:...} names %ss this scenario did not create in namespace %s: %s", s.w.presetKind(), namespaceOr(ns), strings.Join(missing, ", "))
	}
	return out, nil
}

// podNamespace is the logical namespace of a pod the scenario created.
func (s *Scenario) podNamespace(name string) string {
	return s.namespaceOf("Pod", name)
}

func (s *Scenario) namespaceOf(kind, name string) string {
	var found []string
	for k := range s.submitted {
		if k.kind == kind && k.name == name {
			found = append(found, k.namespace)
		}
	}
	if len(found) == 0 {
		return metav1.NamespaceDefault
	}
	sort.Strings(found)
	return found[0]
}

// GetPod returns a pod of the scenario by logical namespace and name.
func (s *Scenario) GetPod(ctx context.Context, logicalNS, name string) (*corev1.Pod, error) {
	ns, err := s.Namespace(ctx, logicalNS)
	if err != nil {
		return nil, err
	}
	u, err := s.w.cluster.get(ctx, podsResource, ns, name)
	if err != nil {
		return nil, s.failed(err, "unable to get pod %q", name)
	}
	return toPod(u)
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

// expandValues expands ${rv:…} in every string value of a decoded object,
// in place.
func (s *Scenario) expandValues(obj map[string]any, ns string) error {
	var walk func(v any) (any, error)
	walk = func(v any) (any, error) {
		switch v := v.(type) {
		case string:
			return s.Expand(v, ns)
		case map[string]any:
			for k, item := range v {
				e, err := walk(item)
				if err != nil {
					return nil, err
				}
				v[k] = e
			}
		case []any:
			for i, item := range v {
				e, err := walk(item)
				if err != nil {
					return nil, err
				}
				v[i] = e
			}
		}
		return v, nil
	}
	_, err := walk(obj)
	return err
}

func (s *Scenario) comparePod(ctx context.Context, want, got *corev1.Pod) error {
	return s.w.ComparePod(ctx, want, got)
}

// ComparePod compares an expected pod with an actual one of this World as
// "the pod ... should be" does: the expected pod first gets the backend's
// defaults (on envtest, the API server's), and the fields a workload
// controller sets per pod are left out of the actual one unless expected.
// The error is a *compare.Mismatch when the pods differ.
func (w *World) ComparePod(ctx context.Context, want, got *corev1.Pod) error {
	defaulted, err := w.defaultPod(ctx, want)
	if err != nil {
		return err
	}
	got = withoutControllerFields(want, got)
	if m := compare.Pods(defaulted, got, compare.Options{AnnotationPrefix: w.AnnotationPrefix}); m != nil {
		return m
	}
	return nil
}

// defaultPod gives an expected pod the backend's defaults by a dry-run
// create in the defaulting namespace, where no module under test runs.
func (w *World) defaultPod(ctx context.Context, want *corev1.Pod) (*corev1.Pod, error) {
	p := want.DeepCopy()
	p.Namespace, p.Name, p.GenerateName = w.DefaultingNamespace, "", "expected-"
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
	p.Annotations[w.Profile.Spec.Annotations.Exclude] = "true"
	p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		return nil, err
	}
	created, err := w.cluster.create(ctx, podsResource, &unstructured.Unstructured{Object: u}, createOptions{dryRun: true})
	if err != nil {
		return nil, fmt.Errorf("the expected pod is not valid (dry-run create: %v)", err)
	}
	got, err := toPod(created)
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
	_, err = s.w.cluster.get(ctx, podsResource, ns, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	default:
		return fmt.Errorf("pod %q exists", name)
	}
}

// logicalOf returns the logical name of a physical namespace.
func (s *Scenario) logicalOf(physical string) string {
	for l, p := range s.physical {
		if p == physical {
			return l
		}
	}
	return physical
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
	keys := sortedKeys(want)
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
	for _, k := range sortedKeys(got.Annotations) {
		if _, mine := own[k]; mine {
			continue
		}
		if strings.HasPrefix(k, s.w.AnnotationPrefix) {
			found = append(found, fmt.Sprintf("%s: %q", k, got.Annotations[k]))
		}
	}
	if len(found) > 0 {
		return fmt.Errorf("pod %q has %s annotations:\n  %s", name, s.w.presetKind(), strings.Join(found, "\n  "))
	}
	return nil
}

// kindOf resolves a kind written in a step ("pod", "ReplicaSet").
func (s *Scenario) kindOf(kind string) (schema.GroupVersionKind, *meta.RESTMapping, error) {
	mapper := s.w.cluster.mapper()
	gvk, err := mapper.KindFor(schema.GroupVersionResource{Resource: strings.ToLower(kind)})
	if err != nil {
		return gvk, nil, fmt.Errorf("unknown kind %q: %w", kind, err)
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	return gvk, mapping, err
}

// WaitForPods waits until exactly n pods are controlled by the object (for a
// Deployment, by its ReplicaSets) and, for workloads, until the controller
// has settled: every replica updated and ready, nothing left of an old
// rollout. Pods being deleted do not count.
func (s *Scenario) WaitForPods(ctx context.Context, n int, kind, name string) ([]corev1.Pod, error) {
	var (
		pods   []corev1.Pod
		status string
		gvk    string
	)
	_, ownerGVR, ns, err := s.object(ctx, kind, name)
	if err != nil {
		return nil, err
	}
	err = s.waitUntil(ctx, ns, s.w.Timeouts.Wait, func(ctx context.Context) (bool, error) {
		owner, _, _, err := s.object(ctx, kind, name)
		if err != nil {
			return false, err
		}
		gvk = owner.GetKind()
		if pods, err = s.ownedPods(ctx, owner); err != nil {
			return false, err
		}
		var ok bool
		ok, status = settled(owner)
		return ok && len(pods) == n, nil
	}, podsResource, ownerGVR, replicaSetsResource)
	if err != nil {
		if status != "" {
			status = fmt.Sprintf(" (%s %q not settled: %s)", gvk, name, status)
		}
		if ctx.Err() == nil && (wait.Interrupted(err) || errors.Is(err, context.DeadlineExceeded)) {
			err = nil // just the timeout, said already
		}
		msg := fmt.Sprintf("want %d pods owned by %s %q, have %d after %s%s", n, kind, name, len(pods), s.w.Timeouts.Wait, status)
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, errors.New(msg)
	}
	return pods, nil
}

// OwnedPodsShouldBe waits as WaitForPods, then compares each pod with the
// expected one.
func (s *Scenario) OwnedPodsShouldBe(ctx context.Context, n int, kind, name string, src manifest.Source, content string) error {
	gvk, _, err := s.kindOf(kind)
	if err != nil {
		return err
	}
	want, err := s.expectedPod(src, content, s.namespaceOf(gvk.Kind, name))
	if err != nil {
		return err
	}
	pods, err := s.WaitForPods(ctx, n, kind, name)
	if err != nil {
		return err
	}
	var errs []error
	for i := range pods {
		if err := s.comparePod(ctx, want, &pods[i]); err != nil {
			errs = append(errs, fmt.Errorf("pod %s:\n%w\n", pods[i].Name, err))
		}
	}
	if len(errs) > 0 {
		// Wrapped, so that callers can read each pod's differences.
		return fmt.Errorf("%d of %d pods differ:\n%w", len(errs), n, errors.Join(errs...))
	}
	return nil
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
		return s.PodAsSubmitted(ctx, name)
	}
	logical := s.namespaceOf(gvk.Kind, name)
	submitted, ok := s.submitted[objectKey{gvk.Kind, logical, name}]
	if !ok {
		return fmt.Errorf("this scenario created no %s %q", gvk.Kind, name)
	}
	got, err := s.w.cluster.get(ctx, mapping.Resource, submitted.GetNamespace(), name)
	if err != nil {
		return s.failed(err, "unable to get %s %q", gvk.Kind, name)
	}
	dry := submitted.DeepCopy()
	dry.SetNamespace(s.w.DefaultingNamespace)
	defaulted, err := s.w.cluster.create(ctx, mapping.Resource, dry, createOptions{dryRun: true})
	if err != nil {
		return fmt.Errorf("unable to default the submitted %s (dry-run create: %s)", gvk.Kind, s.Logical(err.Error()))
	}
	var diffs []compare.Difference
	diffs = append(diffs, compare.Values("metadata.labels", submitted.GetLabels(), got.GetLabels())...)
	for k, v := range got.GetAnnotations() {
		if _, ok := submitted.GetAnnotations()[k]; !ok && strings.HasPrefix(k, s.w.AnnotationPrefix) {
			diffs = append(diffs, compare.Difference{Path: "metadata.annotations[" + k + "]", Want: "<absent>", Got: fmt.Sprintf("%q", v)})
		}
	}
	diffs = append(diffs, compare.Values("spec", defaulted.Object["spec"], got.Object["spec"])...)
	if len(diffs) > 0 {
		lines := make([]string, len(diffs))
		for i, d := range diffs {
			lines[i] = d.String()
		}
		return fmt.Errorf("%s %q is not as submitted:\n%s", gvk.Kind, name, strings.Join(lines, "\n"))
	}
	return nil
}

// EventSpec is an expected event; Message is a substring.
type EventSpec struct{ Type, Reason, Message string }

// HasEvent waits until the object has a matching event. When the object
// exists, the event must carry its UID, as `kubectl describe` lists only those.
func (s *Scenario) HasEvent(ctx context.Context, kind, name string, want EventSpec) error {
	gvk, mapping, err := s.kindOf(kind)
	if err != nil {
		return err
	}
	ns, err := s.Namespace(ctx, s.namespaceOf(gvk.Kind, name))
	if err != nil {
		return err
	}
	var uid types.UID
	if obj, err := s.w.cluster.get(ctx, mapping.Resource, ns, name); err == nil {
		uid = obj.GetUID()
	}
	var seen []corev1.Event
	var wrongUID bool
	err = s.waitUntil(ctx, ns, s.w.Timeouts.Wait, func(ctx context.Context) (bool, error) {
		seen, err = s.events(ctx, ns, gvk.Kind, name)
		if err != nil {
			return false, err
		}
		for _, e := range seen {
			if (want.Type == "" || e.Type == want.Type) && (want.Reason == "" || e.Reason == want.Reason) && strings.Contains(e.Message, want.Message) {
				if uid != "" && e.InvolvedObject.UID != uid {
					wrongUID = true
					continue
				}
				return true, nil
			}
		}
		return false, nil
	}, eventsResource)
	if err != nil {
		hint := ""
		if wrongUID {
			hint = fmt.Sprintf(" (a matching event exists, but its involvedObject.uid is not the %s's UID %s, so `kubectl describe` does not show it)", gvk.Kind, uid)
		}
		return fmt.Errorf("no event type=%s reason=%s message~%q on %s %q after %s%s; events seen: %s",
			want.Type, want.Reason, want.Message, gvk.Kind, name, s.w.Timeouts.Wait, hint, s.Logical(describeEvents(seen)))
	}
	return nil
}

// HasNoEvents checks, for the settle window, that the object gets no event
// with the reason.
func (s *Scenario) HasNoEvents(ctx context.Context, kind, name, reason string) error {
	gvk, _, err := s.kindOf(kind)
	if err != nil {
		return err
	}
	ns, err := s.Namespace(ctx, s.namespaceOf(gvk.Kind, name))
	if err != nil {
		return err
	}
	return s.holds(ctx, func() error {
		evs, err := s.events(ctx, ns, gvk.Kind, name)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if e.Reason == reason {
				return fmt.Errorf("%s %q has an event with reason %s: %s", gvk.Kind, name, reason, s.Logical(e.Message))
			}
		}
		return nil
	})
}

// holds checks check every 100ms for the settle window: something that must
// not happen is watched for a while, not looked for once.
func (s *Scenario) holds(ctx context.Context, check func() error) error {
	deadline := time.Now().Add(s.w.Timeouts.Settle)
	for {
		if err := check(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *Scenario) events(ctx context.Context, ns, kind, name string) ([]corev1.Event, error) {
	list, err := s.w.cluster.list(ctx, eventsResource, ns)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, u := range list {
		var e corev1.Event
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &e); err != nil {
			return nil, fmt.Errorf("unable to read event %s: %w", u.GetName(), err)
		}
		if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out, nil
}

func describeEvents(evs []corev1.Event) string {
	if len(evs) == 0 {
		return "none"
	}
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = fmt.Sprintf("%s %s %q", e.Type, e.Reason, e.Message)
	}
	return strings.Join(parts, "; ")
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// toPod converts an object the backend returned to a Pod.
func toPod(u *unstructured.Unstructured) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, pod); err != nil {
		return nil, fmt.Errorf("unable to read pod %s: %w", u.GetName(), err)
	}
	return pod, nil
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
