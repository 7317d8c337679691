package scenario

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"

	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Scenario is one scenario's view of the World: its own namespaces, what it
// submitted, and the outcome of its last request. It is not safe for
// concurrent use; each scenario has its own.
type Scenario struct {
	w       *harness.World
	cluster backend.Objects
	id      string

	physical  map[string]string // logical → physical namespace
	adopted   map[string]bool   // physical namespaces the scenario did not create
	submitted map[objectKey]*unstructured.Unstructured
	versions  map[objectKey]string // PodPreset resourceVersions, for ${rv:name}
	last      *Attempt
	updates   map[objectKey]*podUpdate // the last update of each pod a step made

	presets    map[string]map[string]*v1alpha1.PodPreset // live canonical presets by logical namespace and name
	recorded   []recordedAdmission                       // the pods steps submitted, in order
	admissions []Admission                               // recorded, converted as far as a step asked
	converted  int                                       // how many of recorded were

	created  podOrder                          // pods in creation order, on real nodes
	cleanups []func(ctx context.Context) error // what Cleanup undoes, in order

	notesMu sync.Mutex
	notes   []string // what the run should tell the reader, though no step failed

	// defaults are the pods dry-run for their defaults (Defaulted); a
	// check defaults its expected pod beside reading the actual one.
	defaultsMu sync.Mutex
	defaults   []defaultedPod
}

// Notes are what the scenario's steps want the reader to know although no
// step failed: a comparison that could not be made on this backend, say.
func (s *Scenario) Notes() []string {
	s.notesMu.Lock()
	defer s.notesMu.Unlock()
	return slices.Clone(s.notes)
}

// note adds a line to Notes.
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
	// NotTakenUp is set when the request succeeded but the implementation
	// never took the preset up (a policy that cannot compile a preset the
	// offline store took without validating it).
	NotTakenUp error
	// Backend is the backend the request went to.
	Backend string
}

// World returns the World the scenario runs in.
func (s *Scenario) World() *harness.World { return s.w }

// Objects returns the cluster's objects, in physical namespaces.
func (s *Scenario) Objects() backend.Objects { return s.cluster }

// submittedObject returns an object as the scenario submitted it (in the
// implementation's terms, namespace physical), by kind, logical namespace
// and name.
func (s *Scenario) submittedObject(kind, logicalNS, name string) (*unstructured.Unstructured, bool) {
	u, ok := s.submitted[objectKey{kind, logicalNS, name}]
	return u, ok
}

// CreationOrder returns the names of the pods created in a physical
// namespace, in the order the API server created them (recorded only where
// pods run on a real kubelet).
func (s *Scenario) CreationOrder(ns string) []string { return s.created.order(ns) }

// onCleanup adds what Cleanup must undo of a change a step made outside the
// scenario's namespaces (the node count, say).
func (s *Scenario) onCleanup(undo func(ctx context.Context) error) {
	s.cleanups = append(s.cleanups, undo)
}

// Cleanup undoes what the scenario changed outside its namespaces, and
// stops what it watches. It is called once, after the scenario's last step.
func (s *Scenario) Cleanup(ctx context.Context) error {
	s.created.stop()
	var errs []error
	for _, undo := range s.cleanups {
		errs = append(errs, undo(ctx))
	}
	s.cleanups = nil
	return errors.Join(errs...)
}

// New returns a scenario of the World with no namespaces yet.
func New(w *harness.World) *Scenario {
	return &Scenario{
		w:       w,
		cluster: w.Objects(),
		// Eight characters: 10,000 scenarios of five drew the same name twice.
		id:        utilrand.String(8),
		physical:  map[string]string{},
		adopted:   map[string]bool{},
		submitted: map[objectKey]*unstructured.Unstructured{},
		versions:  map[objectKey]string{},
		presets:   map[string]map[string]*v1alpha1.PodPreset{},
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
	p, err := s.extendedNamespace(ctx, logical)
	if p == "" && err == nil {
		p, err = NewNamespace(ctx, s.w, logical, s.id)
	}
	for try := 0; apierrors.IsAlreadyExists(err) && try < 3; try++ {
		// Another scenario drew the same name (or a namespace of an earlier
		// run is still there): draw again.
		p, err = NewNamespace(ctx, s.w, logical, utilrand.String(8))
	}
	if err != nil {
		return "", err
	}
	if s.kubelet() != nil {
		if err := s.created.watchNamespace(s.cluster, p); err != nil {
			return "", fmt.Errorf("unable to watch the pods of namespace %s: %w", p, err)
		}
	}
	s.physical[logical] = p
	return p, nil
}

// extendedNamespace creates the physical namespace of a logical one that
// extends another of the scenario's, already made, by "-rest" ("shop" made,
// then "shop-dev"): that one's physical name and the same "-rest"
// ("shop-x1y2z3w4-dev"), so that namespaces whose names share a prefix in
// the feature file share it on the cluster too, as an implementation that
// finds presets by a prefix of their key would see them. It returns "" when
// no namespace of the scenario is extended, or the name would be too long.
func (s *Scenario) extendedNamespace(ctx context.Context, logical string) (string, error) {
	var base string
	for l := range s.physical {
		if strings.HasPrefix(logical, l+"-") && len(l) > len(base) {
			base = l
		}
	}
	if base == "" {
		return "", nil
	}
	p := s.physical[base] + logical[len(base):]
	if len(validation.IsDNS1123Label(p)) > 0 {
		return "", nil
	}
	if err := s.w.Objects().CreateNamespace(ctx, p, s.w.NamespaceLabels(logical)); err != nil {
		return "", err
	}
	return p, nil
}

// NewNamespace creates the physical namespace logical-id, labelled as a
// scenario's namespaces are (World.NamespaceLabels), or takes one made
// ahead (World.PooledNamespace).
func NewNamespace(ctx context.Context, w *harness.World, logical, id string) (string, error) {
	base := logical
	if len(base) > 50 {
		base = base[:50]
	}
	if p, ok := w.PooledNamespace(base); ok {
		return p, nil
	}
	p := base + "-" + id
	if err := w.Objects().CreateNamespace(ctx, p, w.NamespaceLabels(base)); err != nil {
		return "", err
	}
	return p, nil
}

// Adopt has the scenario use physical, a namespace its caller made with
// NewNamespace and keeps, for a logical namespace: the scenario neither
// creates nor deletes it, and pods in it are not watched for a simulated
// kubelet.
func (s *Scenario) Adopt(logical, physical string) {
	s.physical[logical] = physical
	s.adopted[physical] = true
}

// logical replaces physical namespace names in a message by logical ones, so
// reports read like the feature file.
func (s *Scenario) logical(msg string) string {
	for l, p := range s.physical {
		msg = strings.ReplaceAll(msg, p, l)
	}
	return msg
}

// Failed describes a backend error in the feature file's terms: with
// logical namespace names, after what the step was doing. An
// UnsupportedError is returned as it is, so the step is reported as
// unsupported.
func (s *Scenario) Failed(err error, format string, args ...any) error {
	if u, ok := backend.IsUnsupported(err); ok {
		return u
	}
	return fmt.Errorf("%s: %s", fmt.Sprintf(format, args...), s.logical(err.Error()))
}

// lastAttempt returns the outcome of the last try step.
func (s *Scenario) lastAttempt() (*Attempt, error) {
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
// records it; a preset, once the implementation has taken it up. owned
// says o.Raw is the caller's to change (made for this request), so it is
// not copied first.
func (s *Scenario) create(ctx context.Context, o manifest.Object, opts *backend.CreateOptions, owned bool) (*unstructured.Unstructured, error) {
	created, pending, err := s.createLater(ctx, o, opts, owned)
	if err != nil {
		return created, err
	}
	return created, pending.Wait(ctx)
}

// Pending is a preset created and maybe not yet taken up by the
// implementation; a nil Pending (any other object) has nothing to wait
// for.
type Pending struct {
	w                                *harness.World
	namespace, name, resourceVersion string
	// created is when the preset was created: the wait measures the
	// implementation's propagation lag from it (World.NotePropagation).
	created time.Time
}

// Wait waits until the implementation has taken the preset up; its error
// is a *NotTakenUpError.
func (p *Pending) Wait(ctx context.Context) error {
	if p == nil {
		return nil
	}
	seen, err := p.w.AwaitPreset(ctx, p.namespace, p.name, p.resourceVersion)
	if err != nil {
		return &NotTakenUpError{Err: err}
	}
	if seen {
		p.w.NotePropagation(time.Since(p.created))
	}
	return nil
}

// createLater is create without the wait for a preset to be taken up,
// which the returned Pending does: presets created one after the other and
// waited for afterwards are taken up together (the policy's controller
// compiles a namespace once for all of them, where each compilation costs
// an API server tens of milliseconds of CPU).
func (s *Scenario) createLater(ctx context.Context, o manifest.Object, opts *backend.CreateOptions, owned bool) (*unstructured.Unstructured, *Pending, error) {
	if opts == nil {
		opts = &backend.CreateOptions{}
	}
	u := o.Raw
	if !owned {
		u = u.DeepCopy()
	}
	gvk := o.GVK
	if isExpandable(u) {
		if err := s.expandValues(u.Object, namespaceOr(u.GetNamespace())); err != nil {
			return nil, nil, err
		}
	}
	canonical := u.DeepCopy()
	isPod := gvk.Group == "" && gvk.Kind == "Pod"
	switch {
	case isPreset(gvk):
		// Written in canonical terms; created in the implementation's.
		impl, err := s.w.Profile.Preset(u)
		if err != nil {
			return nil, nil, err
		}
		u, gvk = impl, s.w.Profile.PresetGVK()
	case isPod:
		s.translatePodAnnotations(u)
	}
	mapping, err := s.cluster.Mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, nil, fmt.Errorf("unknown kind %s: %w", gvk, err)
	}
	logical := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		logical = namespaceOr(u.GetNamespace())
		ns, err := s.Namespace(ctx, logical)
		if err != nil {
			return nil, nil, err
		}
		u.SetNamespace(ns)
		canonical.SetNamespace(ns)
	}
	key := objectKey{o.GVK.Kind, logical, u.GetName()}
	var submitted *unstructured.Unstructured
	if !opts.DryRun {
		submitted = u.DeepCopy()
	}
	// A pod's warnings are kept with its admission, whether the step
	// collects them or not.
	request := *opts
	if request.Warnings == nil {
		request.Warnings = &backend.Warnings{}
	}
	warned := len(request.Warnings.List())
	// Whether this creation reaches the implementation (R5.4): the times
	// its name was sent, before and after (a pod may be created again
	// under its name).
	sentBefore, known := 0, false
	if isPod {
		sentBefore, known = s.w.PodCreateSent(u.GetNamespace(), u.GetName())
	}
	created, err := s.cluster.Create(ctx, mapping.Resource, u, request)
	if isPod && ctx.Err() == nil {
		sentAfter, _ := s.w.PodCreateSent(u.GetNamespace(), u.GetName())
		s.rememberAdmission(logical, canonical, created, opts.DryRun, request.Warnings.List()[warned:], err, known && sentAfter == sentBefore)
	}
	if err != nil {
		return nil, nil, s.Failed(err, "unable to create %s %q", o.GVK.Kind, u.GetName())
	}
	if opts.DryRun {
		return created, nil, nil
	}
	s.submitted[key] = submitted
	if isPreset(o.GVK) {
		s.versions[key] = created.GetResourceVersion()
		if err := s.rememberPreset(logical, canonical, created); err != nil {
			return nil, nil, err
		}
		return created, &Pending{w: s.w, namespace: created.GetNamespace(), name: created.GetName(), resourceVersion: created.GetResourceVersion(), created: time.Now()}, nil
	}
	return created, nil, nil
}

// NotTakenUpError is create's error when the preset was stored but the
// implementation never took it up (WaitForPreset failed): the request
// itself succeeded.
type NotTakenUpError struct{ Err error }

func (e *NotTakenUpError) Error() string { return e.Err.Error() }
func (e *NotTakenUpError) Unwrap() error { return e.Err }

func namespaceOr(ns string) string {
	if ns == "" {
		return metav1.NamespaceDefault
	}
	return ns
}

var rvPattern = regexp.MustCompile(`\$\{rv:([^}]*)\}`)

// expand replaces ${rv:<preset>} by the resourceVersion of the scenario's
// preset of that name (in the logical namespace ns).
func (s *Scenario) expand(text, ns string) (string, error) {
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
		return "", fmt.Errorf("${rv:...} names %ss this scenario did not create in namespace %s: %s", s.w.PresetKind(), namespaceOr(ns), strings.Join(missing, ", "))
	}
	return out, nil
}

// podNamespace is the logical namespace of a pod the scenario created.
func (s *Scenario) podNamespace(name string) string {
	return s.namespaceOf("Pod", name)
}

// namespaceOf is the logical namespace of an object the scenario created,
// by kind and name ("default" if it created none; the first, by name, if
// it created several).
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

// expandValues expands ${rv:…} in every string value of a decoded object,
// in place.
func (s *Scenario) expandValues(obj map[string]any, ns string) error {
	var walk func(v any) (any, error)
	walk = func(v any) (any, error) {
		switch v := v.(type) {
		case string:
			return s.expand(v, ns)
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

// logicalOf returns the logical name of a physical namespace.
func (s *Scenario) logicalOf(physical string) string {
	for l, p := range s.physical {
		if p == physical {
			return l
		}
	}
	return physical
}

// kubelet returns the cluster's real kubelet, nil when pods do not run on
// one.
func (s *Scenario) kubelet() backend.Kubelet {
	k, _ := s.cluster.(backend.Kubelet)
	return k
}

// translatePodAnnotations rewrites a pod's canonical annotation keys (the
// exclude annotation, podpreset-<name>) into the implementation's.
func (s *Scenario) translatePodAnnotations(u *unstructured.Unstructured) {
	if a := u.GetAnnotations(); len(a) > 0 {
		u.SetAnnotations(s.w.Profile.Annotations(a))
	}
}

// isPreset reports whether a kind is the canonical PodPreset.
func isPreset(gvk schema.GroupVersionKind) bool {
	return gvk.GroupKind() == v1alpha1.SchemeGroupVersion.WithKind("PodPreset").GroupKind()
}

// OwnNamespaces are the physical namespaces the scenario created (not the
// adopted ones), sorted.
func (s *Scenario) OwnNamespaces() []string {
	var out []string
	for _, p := range s.physical {
		if !s.adopted[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// DeleteNamespaces deletes the namespaces the scenario created (and so
// everything in them; not the adopted ones) without waiting for them to be
// gone, for a caller that runs many short scenarios on one cluster
// (presetsim fuzz).
func (s *Scenario) DeleteNamespaces(ctx context.Context) error {
	var errs []error
	for _, p := range s.OwnNamespaces() {
		if err := s.cluster.Delete(ctx, backend.Namespaces, "", p); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
