package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	evanjsonpatch "github.com/evanphx/json-patch/v5"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/webhook"
	"presetsim.dev/presetsim/outcome"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Cluster is the offline backend: objects live in memory (client-go's
// object trackers, which also serve the module's informers and its event
// sink), and every pod created in a namespace the module is registered for is
// passed to the module's Admit in-process, as the API server would call its
// webhook; so are, as through the harness's extra registration (failure
// policy Ignore), pod updates, the ephemeralcontainers subresource and
// ReplicaSets created (other.go).
//
// What it does, in the API server's order, for a pod: name generation, the
// defaults the API server gives volumes and env vars (defaults.Pod;
// no other defaults, no service-account token volume, no default
// tolerations), admission, and storage unless it is a dry run. What it does
// not do is reported, never pretended:
//
//   - no validation: a request it accepts might be rejected by an API server,
//     so a step expecting a rejection is unsupported (Attempt.Unvalidated);
//   - no controllers but a ReplicaSet one: it creates and deletes pods from
//     the template to match spec.replicas and reports them ready at once;
//     creating any other workload is unsupported;
//   - no nodes: steps about nodes are unsupported.
//
// Like an API server, it has the namespace default with the Service
// kubernetes (cluster IP MasterServiceIP, port https 443), so that
// containers see the same service variables on both backends.
type Cluster struct {
	rest    meta.RESTMapper
	scheme  *runtime.Scheme
	typed   *fake.Clientset                // every kind but PodPresets, and events
	dynamic *dynamicfake.FakeDynamicClient // PodPresets, watched by the module
	// plugin is called for the pods of the namespaces selects (every
	// namespace when selects is nil), as a webhook would be; nil until Admit.
	plugin  admission.MutationInterface
	selects labels.Selector
	// namespaced are the namespaced resources served, which deleting a
	// namespace empties (as the namespace controller does).
	namespaced []schema.GroupVersionResource
	// presets are the names of the stored presets, by namespace.
	presets map[string]map[string]bool

	mu sync.Mutex // serialises writes, so resourceVersions grow in order

	failed webhook.Failures // admission requests with no valid answer
	// unsubscribed is what becomes of what the plug-in does with requests
	// other than a pod's creation; findings are what it did with them
	// under backend.UnsubscribedReport.
	unsubscribed backend.Unsubscribed
	findings     webhook.Findings
	// later are AnnotateAfter's, by namespace, under laterMu (pods are
	// admitted with mu held too: a ReplicaSet's).
	laterMu sync.Mutex
	later   map[string][]later
	rv      int64

	watches watches // Watch's, shared per resource and namespace
}

// workloadKinds are the kinds whose controllers make pods; only ReplicaSets
// are simulated offline.
var workloadKinds = map[schema.GroupKind]bool{
	{Group: "apps", Kind: "Deployment"}:        true,
	{Group: "apps", Kind: "StatefulSet"}:       true,
	{Group: "apps", Kind: "DaemonSet"}:         true,
	{Group: "batch", Kind: "Job"}:              true,
	{Group: "batch", Kind: "CronJob"}:          true,
	{Group: "", Kind: "ReplicationController"}: true,
}

// rootScoped are the cluster-scoped kinds of the scheme.
var rootScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ComponentStatus": true,
}

func newCluster(scheme *runtime.Scheme) *Cluster {
	presetGVR := v1alpha1.GroupVersionResource()
	rest, namespaced := offlineMapper(scheme)
	c := &Cluster{
		rest:       rest,
		namespaced: namespaced,
		presets:    map[string]map[string]bool{},
		scheme:     scheme,
		typed:      fake.NewSimpleClientset(), // not NewClientset: its field-managed tracker builds a REST mapper on every create (45 % of a fuzz case offline)
		// Presets are stored unstructured: a scheme of their own lists them
		// into an unstructured list (with the run's scheme, the tracker makes
		// a typed PodPresetList it cannot fill, and a relisting informer fails).
		dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{presetGVR: "PodPresetList"}),
	}
	// The clients' watches (informers') share the feeds, and their changes
	// wait for the feeds as the backend's own do (watches).
	c.typed.PrependWatchReactor("*", c.watches.clientWatch(c.typed.Tracker()))
	c.dynamic.PrependWatchReactor("*", c.watches.clientWatch(c.dynamic.Tracker()))
	c.typed.PrependReactor("*", "*", c.watches.clientWrites)
	c.dynamic.PrependReactor("*", "*", c.watches.clientWrites)
	return c
}

// offlineGroupVersions are the API versions the offline backend serves:
// one per group, as an API server prefers them.
var offlineGroupVersions = map[schema.GroupVersion]bool{
	corev1.SchemeGroupVersion:   true,
	appsv1.SchemeGroupVersion:   true,
	batchv1.SchemeGroupVersion:  true,
	v1alpha1.SchemeGroupVersion: true,
}

// offlineMapper maps every kind of offlineGroupVersions that has a List
// kind, and returns the namespaced resources among them.
func offlineMapper(scheme *runtime.Scheme) (meta.RESTMapper, []schema.GroupVersionResource) {
	m := meta.NewDefaultRESTMapper(nil)
	all := scheme.AllKnownTypes()
	var gvks []schema.GroupVersionKind
	for gvk := range all {
		if !offlineGroupVersions[gvk.GroupVersion()] || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		if _, ok := all[gvk.GroupVersion().WithKind(gvk.Kind+"List")]; ok {
			gvks = append(gvks, gvk)
		}
	}
	sort.Slice(gvks, func(i, j int) bool { return gvks[i].String() < gvks[j].String() })
	var namespaced []schema.GroupVersionResource
	for _, gvk := range gvks {
		scope := meta.RESTScopeNamespace
		if rootScoped[gvk.Kind] && gvk.Group == "" {
			scope = meta.RESTScopeRoot
		}
		m.Add(gvk, scope)
		if scope == meta.RESTScopeNamespace && isObject(scheme, gvk) {
			mapping, err := m.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err == nil {
				namespaced = append(namespaced, mapping.Resource)
			}
		}
	}
	return m, namespaced
}

// isObject reports whether a kind is an API object with metadata (not a
// list or an options kind such as APIGroup).
func isObject(scheme *runtime.Scheme, gvk schema.GroupVersionKind) bool {
	obj, err := scheme.New(gvk)
	if err != nil {
		return false
	}
	_, ok := obj.(metav1.Object)
	return ok
}

// Mapper maps the kinds of the served group versions.
func (c *Cluster) Mapper() meta.RESTMapper { return c.rest }

// Ephemeral is true: the store is this process's memory.
func (c *Cluster) Ephemeral() bool { return true }

// Validates is false: nothing validates what is stored.
func (c *Cluster) Validates() bool { return false }

// Clients are the fake clients over the store.
func (c *Cluster) Clients() backend.Clients {
	return backend.Clients{Typed: c.typed, Dynamic: c.dynamic}
}

// tracker returns the store of a resource.
func (c *Cluster) tracker(gvr schema.GroupVersionResource) clienttesting.ObjectTracker {
	if gvr.Group == v1alpha1.SchemeGroupVersion.Group {
		return c.dynamic.Tracker()
	}
	return c.typed.Tracker()
}

func (c *Cluster) unsupported(format string, args ...any) error {
	return &backend.UnsupportedError{Backend: Name, Reason: fmt.Sprintf(format, args...)}
}

// CreateNamespace creates a namespace.
func (c *Cluster) CreateNamespace(ctx context.Context, name string, labels map[string]string) error {
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ns)
	if err != nil {
		return err
	}
	if _, err := c.Create(ctx, corev1.SchemeGroupVersion.WithResource("namespaces"), &unstructured.Unstructured{Object: u}, backend.CreateOptions{}); err != nil {
		return fmt.Errorf("unable to create namespace %s: %w", name, err)
	}
	return nil
}

// LabelNamespace sets a label of a namespace.
func (c *Cluster) LabelNamespace(ctx context.Context, name, key, value string) error {
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value)
	return c.MergePatch(ctx, corev1.SchemeGroupVersion.WithResource("namespaces"), "", name, []byte(patch))
}

// admitted reports whether the plug-in is registered for the namespace.
func (c *Cluster) admitted(namespace string) (bool, error) {
	if c.plugin == nil {
		return false, nil
	}
	if c.selects == nil {
		return true, nil
	}
	obj, err := c.typed.Tracker().Get(backend.Namespaces, "", namespace)
	if err != nil {
		return false, err
	}
	ns, ok := obj.(*corev1.Namespace)
	return ok && c.selects.Matches(labels.Set(ns.Labels)), nil
}

// Create creates an object; a pod is admitted first. As in an API server,
// requests are admitted concurrently; only storing them is serialised.
func (c *Cluster) Create(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, opts backend.CreateOptions) (*unstructured.Unstructured, error) {
	obj, err := c.admit(ctx, gvr, u, opts)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.commitLocked(ctx, gvr, obj, opts)
}

func (c *Cluster) createLocked(ctx context.Context, gvr schema.GroupVersionResource, in *unstructured.Unstructured, opts backend.CreateOptions) (*unstructured.Unstructured, error) {
	obj, err := c.admit(ctx, gvr, in, opts)
	if err != nil {
		return nil, err
	}
	return c.commitLocked(ctx, gvr, obj, opts)
}

// admit checks a new object and, for a pod, admits it: what an API server
// does before it stores an object. It returns the object as the store
// holds it (typedObject), so that it is converted once each way.
func (c *Cluster) admit(ctx context.Context, gvr schema.GroupVersionResource, in *unstructured.Unstructured, opts backend.CreateOptions) (runtime.Object, error) {
	gvk := in.GroupVersionKind()
	if workloadKinds[gvk.GroupKind()] {
		return nil, c.unsupported("there is no %s controller to create its pods (of the controllers, only the ReplicaSet one is simulated offline)", gvk.Kind)
	}
	obj, err := c.typedObject(gvr, in)
	if err != nil {
		return nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("offline store: %w", err)
	}
	if ns := m.GetNamespace(); ns != "" {
		if _, err := c.typed.Tracker().Get(corev1.SchemeGroupVersion.WithResource("namespaces"), "", ns); err != nil {
			return nil, err
		}
	}
	if m.GetName() == "" && m.GetGenerateName() == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s: name or generateName is required", gvk.Kind))
	}
	if pod, ok := obj.(*corev1.Pod); ok && gvr == backend.Pods {
		return c.admitPod(ctx, pod, opts)
	}
	if gvr == backend.ReplicaSets {
		req, err := request(gvr, obj, nil, "", admission.Create, opts.DryRun)
		if err != nil {
			return nil, err
		}
		return c.admitOther(ctx, req)
	}
	if ns, ok := obj.(*corev1.Namespace); ok {
		ns.Labels = nameLabel(ns.Labels, ns.Name)
	}
	return obj, nil
}

// nameLabel is a namespace's labels with kubernetes.io/metadata.name set
// to its name, as the API server sets it on every create and update (a
// policy binding selects namespaces by it).
func nameLabel(labels map[string]string, name string) map[string]string {
	if labels == nil {
		labels = map[string]string{}
	}
	labels[corev1.LabelMetadataName] = name
	return labels
}

// commitLocked gives an admitted object its system fields and stores it,
// unless it is a dry run; it returns the object as stored.
func (c *Cluster) commitLocked(ctx context.Context, gvr schema.GroupVersionResource, obj runtime.Object, opts backend.CreateOptions) (*unstructured.Unstructured, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("offline store: %w", err)
	}
	// As in the API server, the system fields are filled in after
	// admission: a module sees no name for a pod with a generateName.
	if m.GetName() == "" {
		m.SetName(m.GetGenerateName() + utilrand.String(5))
	}
	m.SetUID(types.UID(utilrand.String(8) + "-offline-" + utilrand.String(8)))
	m.SetCreationTimestamp(metav1.NewTime(time.Now().Truncate(time.Second)))
	m.SetResourceVersion(c.nextRV())
	if kind := obj.GetObjectKind().GroupVersionKind().Kind; kind != "Namespace" && kind != "Event" {
		m.SetGeneration(1)
	}
	if opts.DryRun {
		return c.toUnstructured(gvr, obj)
	}
	if err := c.storeObject(gvr, obj, m, false); err != nil {
		return nil, err
	}
	if gvr == backend.ReplicaSets {
		if err := c.reconcileReplicaSet(ctx, m.GetNamespace(), m.GetName()); err != nil {
			return nil, err
		}
		return c.get(gvr, m.GetNamespace(), m.GetName())
	}
	return c.toUnstructured(gvr, obj)
}

// admitPod gives a pod the merge engine's defaults and, in a namespace the
// module is registered for, passes it to the module.
func (c *Cluster) admitPod(ctx context.Context, pod *corev1.Pod, opts backend.CreateOptions) (*corev1.Pod, error) {
	pod = c.DefaultPod(pod)
	admitted, err := c.admitted(pod.Namespace)
	if err != nil {
		return nil, err
	}
	if !admitted {
		return pod, nil
	}
	outcome, err := admit.Invoke(ctx, c.plugin, nil, admit.PodCreate(pod, opts.DryRun, offlineUser.Name))
	if err != nil {
		c.noteFailed(pod, opts.DryRun, err)
		// An API server would fail the webhook call (failurePolicy Fail).
		return nil, apierrors.NewInternalError(fmt.Errorf("failed calling webhook %q: %w", webhookName, err))
	}
	if opts.Warnings != nil {
		opts.Warnings.Add(outcome.Warnings...)
	}
	if outcome.Denied != nil {
		// The words the API server uses for a webhook's refusal.
		return nil, apierrors.NewForbidden(backend.Pods.GroupResource(), pod.Name,
			fmt.Errorf("admission webhook %q denied the request: %v", webhookName, outcome.Denied))
	}
	warnings, err := c.admitLater(ctx, pod, opts.DryRun)
	if err != nil {
		return nil, err
	}
	if opts.Warnings != nil {
		// An API server returns a warning recorded twice once.
		for _, w := range warnings {
			if !slices.Contains(outcome.Warnings, w) {
				opts.Warnings.Add(w)
			}
		}
	}
	return pod, nil
}

// DefaultPod is a copy of a pod with the defaults the store gives a pod
// it creates, before admission (backend.PodDefaulter).
func (c *Cluster) DefaultPod(pod *corev1.Pod) *corev1.Pod {
	pod = defaults.Pod(pod)
	if pod.Status.Phase == "" {
		pod.Status.Phase = corev1.PodPending
	}
	return pod
}

func (c *Cluster) nextRV() string {
	c.rv++
	return strconv.FormatInt(c.rv, 10)
}

// typed returns the object as its Go type for the typed tracker, or as it is
// for the PodPreset one.
func (c *Cluster) typedObject(gvr schema.GroupVersionResource, u *unstructured.Unstructured) (runtime.Object, error) {
	if gvr.Group == v1alpha1.SchemeGroupVersion.Group {
		return u.DeepCopy(), nil
	}
	typed, err := c.scheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, fmt.Errorf("offline store: %w", err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return nil, fmt.Errorf("offline store: %w", err)
	}
	return typed, nil
}

// store adds or replaces an object in its tracker, typed for the typed one.
func (c *Cluster) store(gvr schema.GroupVersionResource, u *unstructured.Unstructured, replace bool) error {
	obj, err := c.typedObject(gvr, u)
	if err != nil {
		return err
	}
	return c.storeObject(gvr, obj, u, replace)
}

// storeObject adds or replaces an object as typedObject returns it; m is
// its metadata.
func (c *Cluster) storeObject(gvr schema.GroupVersionResource, obj runtime.Object, m metav1.Object, replace bool) error {
	t := c.tracker(gvr)
	if err := c.watches.before(gvr, m.GetNamespace()); err != nil {
		return err
	}
	if replace {
		return t.Update(gvr, obj, m.GetNamespace())
	}
	if err := t.Create(gvr, obj, m.GetNamespace()); err != nil {
		return err
	}
	if gvr.Group == v1alpha1.SchemeGroupVersion.Group {
		if c.presets[m.GetNamespace()] == nil {
			c.presets[m.GetNamespace()] = map[string]bool{}
		}
		c.presets[m.GetNamespace()][m.GetName()] = true
	}
	return nil
}

// Get reads an object. It takes no lock: the trackers are safe for
// concurrent use, and a read sees one write or the next.
func (c *Cluster) Get(_ context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	return c.get(gvr, namespace, name)
}

// get reads an object from its tracker, which is safe for concurrent use:
// it needs no lock, and is also called with c.mu held.
func (c *Cluster) get(gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	obj, err := c.tracker(gvr).Get(gvr, namespace, name)
	if err != nil {
		return nil, err
	}
	return c.toUnstructured(gvr, obj)
}

func (c *Cluster) toUnstructured(gvr schema.GroupVersionResource, obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u.DeepCopy(), nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	gvk, err := c.rest.KindFor(gvr)
	if err != nil {
		return nil, err
	}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// Watch watches a resource. The caller stops the watch; deleting the
// namespace ends it too.
func (c *Cluster) Watch(_ context.Context, gvr schema.GroupVersionResource, namespace string) (watch.Interface, error) {
	return c.watches.watch(c.tracker(gvr), gvr, namespace)
}

// List lists a resource, sorted by name.
func (c *Cluster) List(_ context.Context, gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listLocked(gvr, namespace)
}

func (c *Cluster) listLocked(gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error) {
	if gvr.Group == v1alpha1.SchemeGroupVersion.Group {
		return c.listPresetsLocked(gvr, namespace)
	}
	gvk, err := c.rest.KindFor(gvr)
	if err != nil {
		return nil, err
	}
	obj, err := c.tracker(gvr).List(gvr, gvk, namespace)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, err
	}
	out := make([]unstructured.Unstructured, 0, len(items))
	for _, item := range items {
		u, err := c.toUnstructured(gvr, item)
		if err != nil {
			return nil, err
		}
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// listPresetsLocked lists presets by the names kept on the side: they are
// stored unstructured, which the tracker cannot list into its typed list.
func (c *Cluster) listPresetsLocked(gvr schema.GroupVersionResource, namespace string) ([]unstructured.Unstructured, error) {
	namespaces := []string{namespace}
	if namespace == "" {
		namespaces = slices.Collect(maps.Keys(c.presets))
	}
	var out []unstructured.Unstructured
	for _, ns := range namespaces {
		for name := range c.presets[ns] {
			u, err := c.get(gvr, ns, name)
			if err != nil {
				return nil, err
			}
			out = append(out, *u)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// Update replaces an object, with optimistic concurrency; a pod's update
// is admitted first (admitOther).
func (c *Cluster) Update(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, _ *backend.Warnings) (*unstructured.Unstructured, error) {
	return c.update(ctx, gvr, u, "")
}

// update is Update of the object or of its subresource. As in an API
// server, a pod's update is admitted before the store is locked; it is
// stored only if nothing changed the pod meanwhile.
func (c *Cluster) update(ctx context.Context, gvr schema.GroupVersionResource, u *unstructured.Unstructured, subresource string) (*unstructured.Unstructured, error) {
	current, err := c.get(gvr, u.GetNamespace(), u.GetName())
	if err != nil {
		return nil, err
	}
	next := u.DeepCopy()
	if gvr == backend.Pods {
		if next, err = c.admitPodUpdate(ctx, current, next, subresource); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	stored, err := c.get(gvr, u.GetNamespace(), u.GetName())
	if err != nil {
		return nil, err
	}
	rv := u.GetResourceVersion()
	if gvr == backend.Pods && rv == "" {
		rv = current.GetResourceVersion() // admitted against current
	}
	if rv != "" && rv != stored.GetResourceVersion() {
		return nil, apierrors.NewConflict(gvr.GroupResource(), u.GetName(),
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	return c.replaceLocked(gvr, stored, next)
}

// replaceLocked stores next in place of current, keeping what the server
// owns and bumping the generation when the spec changed.
func (c *Cluster) replaceLocked(gvr schema.GroupVersionResource, current, next *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	next.SetUID(current.GetUID())
	next.SetCreationTimestamp(current.GetCreationTimestamp())
	next.SetGeneration(current.GetGeneration())
	if !equalJSON(current.Object["spec"], next.Object["spec"]) && current.GetGeneration() > 0 {
		next.SetGeneration(current.GetGeneration() + 1)
	}
	next.SetResourceVersion(c.nextRV())
	if gvr == backend.Namespaces {
		next.SetLabels(nameLabel(next.GetLabels(), next.GetName()))
	}
	if err := c.store(gvr, next, true); err != nil {
		return nil, err
	}
	return next, nil
}

func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// MergePatch applies a JSON merge patch.
func (c *Cluster) MergePatch(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, patch []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	current, err := c.get(gvr, namespace, name)
	if err != nil {
		return err
	}
	doc, err := json.Marshal(current.Object)
	if err != nil {
		return err
	}
	patched, err := evanjsonpatch.MergePatch(doc, patch)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid merge patch: %v", err))
	}
	next := &unstructured.Unstructured{}
	if err := next.UnmarshalJSON(patched); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("the patched object is not valid: %v", err))
	}
	if _, err := c.replaceLocked(gvr, current, next); err != nil {
		return err
	}
	if gvr == backend.ReplicaSets {
		return c.reconcileReplicaSet(ctx, namespace, name)
	}
	return nil
}

// Delete deletes an object.
func (c *Cluster) Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	current, err := c.get(gvr, namespace, name)
	if err != nil {
		return err
	}
	if err := c.watches.before(gvr, namespace); err != nil {
		return err
	}
	if err := c.tracker(gvr).Delete(gvr, namespace, name); err != nil {
		return err
	}
	if gvr == backend.Namespaces {
		// The fake clients record every action they serve; nothing reads
		// the record, so it goes with each namespace, or memory would grow
		// with every scenario (presetsim fuzz runs thousands).
		c.typed.ClearActions()
		c.dynamic.ClearActions()
		defer c.watches.forget(name)
		return c.emptyNamespaceLocked(name)
	}
	delete(c.presets[namespace], name)
	if owner := metav1.GetControllerOf(current); gvr == backend.Pods && owner != nil && owner.Kind == "ReplicaSet" {
		return c.reconcileReplicaSet(ctx, namespace, owner.Name)
	}
	return nil
}

// emptyNamespaceLocked deletes every object of a deleted namespace, at
// once: offline there is no graceful deletion to wait for.
func (c *Cluster) emptyNamespaceLocked(namespace string) error {
	for _, gvr := range c.namespaced {
		if err := c.deleteAllLocked(gvr, namespace); err != nil {
			return err
		}
	}
	return nil
}

// DeleteAll deletes every object of a resource in a namespace.
func (c *Cluster) DeleteAll(_ context.Context, gvr schema.GroupVersionResource, namespace string) error {
	if namespace == "" {
		return fmt.Errorf("refusing to delete every %s of the cluster: DeleteAll is for one namespace", gvr.Resource)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// As when a namespace is deleted: the fake clients' record of actions
	// goes too, or memory would grow with every reuse of a namespace.
	c.typed.ClearActions()
	c.dynamic.ClearActions()
	return c.deleteAllLocked(gvr, namespace)
}

func (c *Cluster) deleteAllLocked(gvr schema.GroupVersionResource, namespace string) error {
	if gvr.Group == v1alpha1.SchemeGroupVersion.Group {
		// Stored unstructured, which the tracker cannot list into its
		// typed list: the names are kept on the side.
		for name := range c.presets[namespace] {
			if err := c.watches.before(gvr, namespace); err != nil {
				return err
			}
			if err := c.dynamic.Tracker().Delete(gvr, namespace, name); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		delete(c.presets, namespace)
		return nil
	}
	gvk, err := c.rest.KindFor(gvr)
	if err != nil {
		return err
	}
	list, err := c.typed.Tracker().List(gvr, gvk, namespace)
	if err != nil {
		return err
	}
	var names []string
	err = meta.EachListItem(list, func(o runtime.Object) error {
		m, err := meta.Accessor(o)
		if err == nil {
			names = append(names, m.GetName())
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := c.watches.before(gvr, namespace); err != nil {
			return err
		}
		if err := c.tracker(gvr).Delete(gvr, namespace, name); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// reconcileReplicaSet is the offline ReplicaSet controller: it creates pods
// from the template (through admission, like the real controller's creates)
// or deletes the newest ones until spec.replicas pods exist, then reports
// them all ready.
func (c *Cluster) reconcileReplicaSet(ctx context.Context, namespace, name string) error {
	u, err := c.get(backend.ReplicaSets, namespace, name)
	if err != nil {
		return err
	}
	rs := &appsv1.ReplicaSet{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, rs); err != nil {
		return err
	}
	want := int32(1)
	if rs.Spec.Replicas != nil {
		want = *rs.Spec.Replicas
	}
	all, err := c.listLocked(backend.Pods, namespace)
	if err != nil {
		return err
	}
	var owned []unstructured.Unstructured
	for i := range all {
		if o := metav1.GetControllerOf(&all[i]); o != nil && o.UID == rs.UID {
			owned = append(owned, all[i])
		}
	}
	for n := int32(len(owned)); n < want; n++ {
		if err := c.createReplica(ctx, rs); err != nil {
			return fmt.Errorf("ReplicaSet %s: %w", name, err)
		}
	}
	sort.Slice(owned, func(i, j int) bool {
		a, _ := strconv.ParseInt(owned[i].GetResourceVersion(), 10, 64)
		b, _ := strconv.ParseInt(owned[j].GetResourceVersion(), 10, 64)
		return a > b
	})
	for i := 0; int32(len(owned)-i) > want; i++ {
		if err := c.watches.before(backend.Pods, namespace); err != nil {
			return err
		}
		if err := c.typed.Tracker().Delete(backend.Pods, namespace, owned[i].GetName()); err != nil {
			return err
		}
	}
	rs.Status = appsv1.ReplicaSetStatus{
		Replicas: want, FullyLabeledReplicas: want, ReadyReplicas: want, AvailableReplicas: want,
		ObservedGeneration: rs.Generation,
	}
	rs.ResourceVersion = c.nextRV()
	if err := c.watches.before(backend.ReplicaSets, namespace); err != nil {
		return err
	}
	return c.typed.Tracker().Update(backend.ReplicaSets, rs, namespace)
}

func (c *Cluster) createReplica(ctx context.Context, rs *appsv1.ReplicaSet) error {
	pod := manifest.ControllerPod(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), &rs.Spec.Template)
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return err
	}
	_, err = c.createLocked(ctx, backend.Pods, &unstructured.Unstructured{Object: obj}, backend.CreateOptions{})
	return err
}

// MasterServiceIP is the cluster IP of the offline backend's "kubernetes"
// Service: the first address of envtest's service range 10.0.0.0/24, as
// the API server gives it.
const MasterServiceIP = "10.0.0.1"

// addMasterService creates the default namespace and its "kubernetes"
// Service, which an API server creates for itself and every pod gets
// variables for.
func (c *Cluster) addMasterService(ctx context.Context) error {
	if err := c.CreateNamespace(ctx, metav1.NamespaceDefault, nil); err != nil {
		return err
	}
	svc := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: MasterServiceIP, ClusterIPs: []string{MasterServiceIP},
			Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(6443)}},
		},
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(svc)
	if err != nil {
		return err
	}
	if _, err := c.Create(ctx, corev1.SchemeGroupVersion.WithResource("services"), &unstructured.Unstructured{Object: u}, backend.CreateOptions{}); err != nil {
		return fmt.Errorf("unable to create the kubernetes Service: %w", err)
	}
	return nil
}

// offlineUser is the user every request of the store is made by.
var offlineUser = &user.DefaultInfo{Name: "presetsim-offline"}

// metaOf is an object's metadata.
func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("offline store: %w", err)
	}
	return m, nil
}

// webhookName is the name an API server would give the module's webhook in
// its messages.
const webhookName = "podpreset.presetsim.dev"

// noteFailed records an admission request the plug-in gave no valid
// answer to (it panicked), for R5.3.
func (c *Cluster) noteFailed(pod *corev1.Pod, dryRun bool, err error) {
	c.failed.Note(pod.Namespace, webhook.Describe("CREATE", "Pod", pod.Name, dryRun)+": "+err.Error())
}

// FailedRequests are the admission requests in the namespace the plug-in
// gave no valid answer to (backend.AdmissionFailures).
func (c *Cluster) FailedRequests(namespace string) []string { return c.failed.In(namespace) }

// FindingsIn are what the plug-in did with the requests of the namespace
// other than a pod's creation (backend.Findings).
func (c *Cluster) FindingsIn(namespace string) []outcome.Finding {
	return c.findings.FindingsIn(namespace)
}
