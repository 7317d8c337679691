package admission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/tools/record"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// ---- fakes ----------------------------------------------------------------

// fakeLister is a static Lister: namespace → presets. It records the
// namespaces it was asked for.
type fakeLister struct {
	presets map[string][]*v1alpha1.PodPreset
	err     error

	mu    sync.Mutex
	calls []string
}

func (l *fakeLister) List(namespace string) ([]*v1alpha1.PodPreset, error) {
	l.mu.Lock()
	l.calls = append(l.calls, namespace)
	l.mu.Unlock()
	if l.err != nil {
		return nil, l.err
	}
	return l.presets[namespace], nil
}

func (l *fakeLister) namespaces() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// event is one event recorded by captureRecorder.
type event struct {
	Ref       corev1.ObjectReference
	EventType string
	Reason    string
	Message   string
}

// captureRecorder is a record.EventRecorder that keeps the object reference
// each event is attached to.
type captureRecorder struct {
	mu     sync.Mutex
	events []event
}

var _ record.EventRecorder = &captureRecorder{}

func (r *captureRecorder) Event(obj runtime.Object, eventtype, reason, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := event{EventType: eventtype, Reason: reason, Message: message}
	if ref, ok := obj.(*corev1.ObjectReference); ok {
		e.Ref = *ref
	} else {
		e.Ref = corev1.ObjectReference{Kind: fmt.Sprintf("unexpected %T", obj)}
	}
	r.events = append(r.events, e)
}

func (r *captureRecorder) Eventf(obj runtime.Object, eventtype, reason, format string, args ...any) {
	r.Event(obj, eventtype, reason, fmt.Sprintf(format, args...))
}

func (r *captureRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventtype, reason, format string, args ...any) {
	r.Event(obj, eventtype, reason, fmt.Sprintf(format, args...))
}

func (r *captureRecorder) list() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// warnings collects admission warnings (warning.Recorder).
type warnings struct {
	mu   sync.Mutex
	text []string
}

func (w *warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

func (w *warnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.text)
}

// ---- fixtures ---------------------------------------------------------------

const ns = "default"

var podsResource = corev1.SchemeGroupVersion.WithResource("pods")

// newPod returns the pod "website" (app=website) with one container "web".
func newPod(opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      "website",
			Namespace: ns,
			UID:       "pod-uid",
			Labels:    map[string]string{"app": "website"},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withAnnotation(k, v string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
}

func withNamespace(n string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Namespace = n }
}

func withoutName(p *corev1.Pod) { p.Name, p.UID = "", "" }

func withMountPath(path string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts,
			corev1.VolumeMount{Name: "data", MountPath: path})
	}
}

func withEnv(name, value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: name, Value: value})
	}
}

func withControllerOwner(p *corev1.Pod) {
	p.GenerateName = "website-7d9f8-"
	p.OwnerReferences = []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: "not-the-controller", UID: "cm-uid"},
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "website-7d9f8", UID: "rs-uid", Controller: new(true)},
	}
}

// newPreset returns the preset allow-database (app=website): env DB_PORT,
// volume cache, mount /cache.
func newPreset(namespace, name string) *v1alpha1.PodPreset {
	return &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, ResourceVersion: "7"},
		Spec: v1alpha1.PodPresetSpec{
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "website"}},
			Env:      []corev1.EnvVar{{Name: "DB_PORT", Value: "6379"}},
			Volumes: []corev1.Volume{{
				Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}},
			}},
			VolumeMounts: []corev1.VolumeMount{{Name: "cache", MountPath: "/cache"}},
		},
	}
}

// mutated is newPod(opts...) as allow-database (resourceVersion 7) leaves it.
func mutated(opts ...func(*corev1.Pod)) *corev1.Pod {
	p := newPod(opts...)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[merge.AnnotationKey("allow-database")] = "7"
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{
		Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}},
	})
	c := &p.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: "DB_PORT", Value: "6379"})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "cache", MountPath: "/cache"})
	return p
}

// request describes the admission request of a test case; the zero value
// is a CREATE of core pods in ns.
type request struct {
	op          admission.Operation
	resource    schema.GroupVersionResource
	kind        schema.GroupVersionKind
	subresource string
	namespace   string
	dryRun      bool
	oldObject   runtime.Object
}

func (r request) attributes(obj runtime.Object) admission.Attributes {
	if r.op == "" {
		r.op = admission.Create
	}
	if r.resource.Resource == "" {
		r.resource = podsResource
	}
	if r.kind.Kind == "" {
		r.kind = corev1.SchemeGroupVersion.WithKind("Pod")
	}
	if r.namespace == "" {
		r.namespace = ns
	}
	name := ""
	if m, ok := obj.(metav1.Object); ok {
		name = m.GetName()
	}
	return admission.NewAttributesRecord(obj, r.oldObject, r.kind, r.namespace, name, r.resource,
		r.subresource, r.op, nil, r.dryRun, &user.DefaultInfo{Name: "alice"})
}

func newPlugin(l Lister, rec record.EventRecorder) *Plugin {
	p := New()
	p.SetPodPresetLister(l)
	if rec != nil {
		p.SetEventRecorder(rec)
	}
	return p
}

// admit runs the plug-in and returns the admission warnings and its error.
func admit(t *testing.T, p *Plugin, a admission.Attributes) ([]string, error) {
	t.Helper()
	w := &warnings{}
	ctx := warning.WithWarningRecorder(context.Background(), w)
	err := p.Admit(ctx, a, nil)
	return w.list(), err
}

// ---- tests --------------------------------------------------------------------

func TestNewHandlesCreateOnly(t *testing.T) {
	p := New()
	for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect} {
		if got, want := p.Handles(op), op == admission.Create; got != want {
			t.Errorf("Handles(%s) = %v, want %v", op, got, want)
		}
	}
}

// TestAdmit covers which requests are mutated (R2) and which are ignored.
func TestAdmit(t *testing.T) {
	defaultPresets := map[string][]*v1alpha1.PodPreset{ns: {newPreset(ns, "allow-database")}}
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "website", Namespace: ns, Labels: map[string]string{"app": "website"}},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "website"}},
			Spec:       newPod().Spec,
		}},
	}
	unstructuredPod, err := runtime.DefaultUnstructuredConverter.ToUnstructured(newPod())
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		presets map[string][]*v1alpha1.PodPreset // defaultPresets when nil
		req     request
		obj     runtime.Object
		want    runtime.Object // obj unchanged when nil
		// wantLister is the namespaces the lister must be asked for; nil
		// means it must not be consulted at all.
		wantLister []string
	}{
		{
			name:       "mutates a matching pod on CREATE",
			obj:        newPod(),
			want:       mutated(),
			wantLister: []string{ns},
		},
		{
			name:       "mutates a pod without name (generateName)",
			obj:        newPod(withoutName, withControllerOwner),
			want:       mutated(withoutName, withControllerOwner),
			wantLister: []string{ns},
		},
		{
			name:       "keeps existing annotations and items",
			obj:        newPod(withAnnotation("team", "web"), withEnv("LOG", "debug")),
			want:       mutated(withAnnotation("team", "web"), withEnv("LOG", "debug")),
			wantLister: []string{ns},
		},
		{
			name:       "mutates a server-side dry-run CREATE (R2.1)",
			req:        request{dryRun: true},
			obj:        newPod(),
			want:       mutated(),
			wantLister: []string{ns},
		},
		{
			name:       `mutates when exclude is "false"`,
			obj:        newPod(withAnnotation(merge.ExcludeAnnotation, "false")),
			want:       mutated(withAnnotation(merge.ExcludeAnnotation, "false")),
			wantLister: []string{ns},
		},
		{
			name:       `mutates when exclude is "True" (only exactly "true" excludes)`,
			obj:        newPod(withAnnotation(merge.ExcludeAnnotation, "True")),
			want:       mutated(withAnnotation(merge.ExcludeAnnotation, "True")),
			wantLister: []string{ns},
		},
		{
			name:       `mutates when exclude is empty`,
			obj:        newPod(withAnnotation(merge.ExcludeAnnotation, "")),
			want:       mutated(withAnnotation(merge.ExcludeAnnotation, "")),
			wantLister: []string{ns},
		},
		{
			name:       "uses the namespace of the request",
			presets:    map[string][]*v1alpha1.PodPreset{"team-a": {newPreset("team-a", "allow-database")}},
			req:        request{namespace: "team-a"},
			obj:        newPod(withNamespace("")),
			want:       mutated(withNamespace("")),
			wantLister: []string{"team-a"},
		},
		{
			name:       "leaves a pod without a matching preset alone",
			obj:        newPod(func(p *corev1.Pod) { p.Labels = map[string]string{"app": "shop"} }),
			wantLister: []string{ns},
		},
		{
			name:       "presets of other namespaces never apply (R2.2)",
			req:        request{namespace: "other"},
			obj:        newPod(withNamespace("other")),
			wantLister: []string{"other"},
		},
		{
			name:       "presets of the pod's namespace field do not apply to another request namespace (R2.2)",
			req:        request{namespace: "other"},
			obj:        newPod(),
			wantLister: []string{"other"},
		},
		{
			name: "idempotent on an already mutated pod (R3.8)",
			obj:  mutated(),
			// want: unchanged.
			wantLister: []string{ns},
		},

		// Ignored requests: the lister is never consulted.
		{name: "ignores UPDATE", req: request{op: admission.Update, oldObject: newPod()}, obj: newPod()},
		{name: "ignores DELETE", req: request{op: admission.Delete, oldObject: newPod()}, obj: newPod()},
		{name: "ignores CONNECT", req: request{op: admission.Connect}, obj: newPod()},
		{name: "ignores pods/status", req: request{subresource: "status"}, obj: newPod()},
		{name: "ignores pods/ephemeralcontainers", req: request{subresource: "ephemeralcontainers"}, obj: newPod()},
		{name: "ignores pods/binding", req: request{subresource: "binding"}, obj: newPod()},
		{
			name: "ignores an UPDATE of pods/ephemeralcontainers",
			req:  request{op: admission.Update, subresource: "ephemeralcontainers", oldObject: newPod()},
			obj:  newPod(),
		},
		{
			name: "ignores a ConfigMap",
			req: request{
				resource: corev1.SchemeGroupVersion.WithResource("configmaps"),
				kind:     corev1.SchemeGroupVersion.WithKind("ConfigMap"),
			},
			obj: &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "website", Namespace: ns, Labels: map[string]string{"app": "website"}},
				Data:       map[string]string{"k": "v"},
			},
		},
		{
			name: "ignores an apps Deployment (its pod template is never modified, R2.6)",
			req: request{
				resource: appsv1.SchemeGroupVersion.WithResource("deployments"),
				kind:     appsv1.SchemeGroupVersion.WithKind("Deployment"),
			},
			obj: deployment,
		},
		{
			name: "ignores a pod object sent for another resource",
			req:  request{resource: corev1.SchemeGroupVersion.WithResource("podtemplates")},
			obj:  newPod(),
		},
		{
			name: "ignores pods of another API group",
			req:  request{resource: schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}},
			obj:  newPod(),
		},
		{
			name: "ignores an object that is not a *corev1.Pod",
			obj:  &unstructured.Unstructured{Object: unstructuredPod},
		},
		{
			name: "ignores a nil object",
			obj:  nil,
		},
		{
			name: `ignores a pod with exclude "true" (R2.4)`,
			obj:  newPod(withAnnotation(merge.ExcludeAnnotation, "true")),
		},
		{
			name: "ignores a mirror pod (R2.5)",
			obj:  newPod(withAnnotation(MirrorPodAnnotation, "4bd1c0ff")),
		},
		{
			name: "ignores a mirror pod whose annotation is empty (R2.5)",
			obj:  newPod(withAnnotation(MirrorPodAnnotation, "")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			presets := tc.presets
			if presets == nil {
				presets = defaultPresets
			}
			lister := &fakeLister{presets: presets}
			presetsBefore := deepCopyPresets(presets)
			rec := &captureRecorder{}
			p := newPlugin(lister, rec)

			var before runtime.Object
			if tc.obj != nil {
				before = tc.obj.DeepCopyObject()
			}
			warns, err := admit(t, p, tc.req.attributes(tc.obj))
			if err != nil {
				t.Fatalf("Admit: %v", err)
			}
			want := tc.want
			if want == nil {
				want = before
			}
			if diff := cmp.Diff(want, tc.obj); diff != "" {
				t.Errorf("object after Admit (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantLister, lister.namespaces()); diff != "" {
				t.Errorf("namespaces listed (-want +got):\n%s", diff)
			}
			if len(warns) != 0 {
				t.Errorf("warnings = %q, want none", warns)
			}
			if ev := rec.list(); len(ev) != 0 {
				t.Errorf("events = %+v, want none", ev)
			}
			if diff := cmp.Diff(presetsBefore, presets); diff != "" {
				t.Errorf("Admit modified the lister's presets (-before +after):\n%s", diff)
			}
		})
	}
}

func deepCopyPresets(in map[string][]*v1alpha1.PodPreset) map[string][]*v1alpha1.PodPreset {
	out := map[string][]*v1alpha1.PodPreset{}
	for k, v := range in {
		for _, p := range v {
			out[k] = append(out[k], p.DeepCopy())
		}
	}
	return out
}

func TestAdmitListerError(t *testing.T) {
	lister := &fakeLister{err: errors.New("cache not synced")}
	rec := &captureRecorder{}
	p := newPlugin(lister, rec)
	pod := newPod()

	warns, err := admit(t, p, request{}.attributes(pod))
	if err == nil {
		t.Fatal("Admit succeeded, want a forbidden error")
	}
	if !apierrors.IsForbidden(err) {
		t.Errorf("Admit error %v is not Forbidden", err)
	}
	for _, want := range []string{`unable to list PodPresets of namespace "default"`, "cache not synced", "website"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Admit error %q does not contain %q", err, want)
		}
	}
	if diff := cmp.Diff(newPod(), pod); diff != "" {
		t.Errorf("pod changed (-want +got):\n%s", diff)
	}
	if len(warns) != 0 || len(rec.list()) != 0 {
		t.Errorf("warnings %q, events %+v; want none", warns, rec.list())
	}
}

func TestAdmitInvalidSelectorIsSkippedWithAWarning(t *testing.T) {
	broken := newPreset(ns, "broken")
	broken.Spec.Selector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "app", Operator: "Bogus", Values: []string{"website"}},
	}}
	broken.Spec.Env = []corev1.EnvVar{{Name: "BROKEN", Value: "1"}}
	lister := &fakeLister{presets: map[string][]*v1alpha1.PodPreset{ns: {broken, newPreset(ns, "allow-database")}}}
	p := newPlugin(lister, &captureRecorder{})
	pod := newPod()

	warns, err := admit(t, p, request{}.attributes(pod))
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if diff := cmp.Diff(mutated(), pod); diff != "" {
		t.Errorf("pod (-want +got):\n%s", diff)
	}
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "podpreset: pod preset default/broken has an invalid selector") {
		t.Errorf("warnings = %q, want one about default/broken's selector", warns)
	}
}

// TestAdmitConflict covers R4.2 and R4.3.
func TestAdmitConflict(t *testing.T) {
	const mountMsg = "Conflict on pod preset allow-database: duplicate mountPath /cache in container web"
	podRef := corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: ns, Name: "website", UID: "pod-uid"}

	tests := []struct {
		name         string
		presets      []*v1alpha1.PodPreset
		req          request
		pod          *corev1.Pod
		noRecorder   bool
		wantWarnings []string
		wantEvents   []event
	}{
		{
			name:         "event on the named pod and a warning",
			pod:          newPod(withMountPath("/cache")),
			wantWarnings: []string{mountMsg},
			wantEvents:   []event{{Ref: podRef, EventType: corev1.EventTypeWarning, Reason: ConflictReason, Message: mountMsg}},
		},
		{
			name:         "dry-run: a warning but no event",
			req:          request{dryRun: true},
			pod:          newPod(withMountPath("/cache")),
			wantWarnings: []string{mountMsg},
		},
		{
			name:         "pod without name: event on its controller owner",
			pod:          newPod(withoutName, withControllerOwner, withMountPath("/cache")),
			wantWarnings: []string{mountMsg},
			wantEvents: []event{{
				Ref:       corev1.ObjectReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: ns, Name: "website-7d9f8", UID: "rs-uid"},
				EventType: corev1.EventTypeWarning, Reason: ConflictReason, Message: mountMsg,
			}},
		},
		{
			name:         "pod without name: event in the request namespace",
			req:          request{namespace: "team-a"},
			presets:      []*v1alpha1.PodPreset{newPreset("team-a", "allow-database")},
			pod:          newPod(withNamespace(""), withoutName, withControllerOwner, withMountPath("/cache")),
			wantWarnings: []string{mountMsg},
			wantEvents: []event{{
				Ref:       corev1.ObjectReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "team-a", Name: "website-7d9f8", UID: "rs-uid"},
				EventType: corev1.EventTypeWarning, Reason: ConflictReason, Message: mountMsg,
			}},
		},
		{
			name: "pod with neither name nor controller: a warning, no event",
			pod: newPod(withoutName, withMountPath("/cache"), func(p *corev1.Pod) {
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: "cm-uid"}}
			}),
			wantWarnings: []string{mountMsg},
		},
		{
			name:         "no recorder: a warning only",
			noRecorder:   true,
			pod:          newPod(withMountPath("/cache")),
			wantWarnings: []string{mountMsg},
		},
		{
			name: "one conflicting preset blocks every preset (R4.2), one message per preset",
			presets: []*v1alpha1.PodPreset{
				newPreset(ns, "allow-database"),
				func() *v1alpha1.PodPreset {
					pp := newPreset(ns, "b-env-only")
					pp.Spec.Env = []corev1.EnvVar{{Name: "LOG", Value: "info"}}
					pp.Spec.Volumes, pp.Spec.VolumeMounts = nil, nil
					return pp
				}(),
				func() *v1alpha1.PodPreset {
					pp := newPreset(ns, "a-harmless")
					pp.Spec.Env = []corev1.EnvVar{{Name: "HARMLESS", Value: "1"}}
					pp.Spec.Volumes, pp.Spec.VolumeMounts = nil, nil
					return pp
				}(),
			},
			pod: newPod(withEnv("LOG", "debug"), withEnv("DB_PORT", "5432")),
			wantWarnings: []string{
				"Conflict on pod preset allow-database: duplicate env DB_PORT in container web",
				"Conflict on pod preset b-env-only: duplicate env LOG in container web",
			},
			wantEvents: []event{
				{Ref: podRef, EventType: corev1.EventTypeWarning, Reason: ConflictReason,
					Message: "Conflict on pod preset allow-database: duplicate env DB_PORT in container web"},
				{Ref: podRef, EventType: corev1.EventTypeWarning, Reason: ConflictReason,
					Message: "Conflict on pod preset b-env-only: duplicate env LOG in container web"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			presets := tc.presets
			if presets == nil {
				presets = []*v1alpha1.PodPreset{newPreset(ns, "allow-database")}
			}
			namespace := tc.req.namespace
			if namespace == "" {
				namespace = ns
			}
			lister := &fakeLister{presets: map[string][]*v1alpha1.PodPreset{namespace: presets}}
			rec := &captureRecorder{}
			var p *Plugin
			if tc.noRecorder {
				p = newPlugin(lister, nil)
			} else {
				p = newPlugin(lister, rec)
			}
			before := tc.pod.DeepCopy()

			warns, err := admit(t, p, tc.req.attributes(tc.pod))
			if err != nil {
				t.Fatalf("Admit: %v (a conflict must not refuse the pod)", err)
			}
			if diff := cmp.Diff(before, tc.pod); diff != "" {
				t.Errorf("pod changed on conflict (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWarnings, warns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEvents, rec.list()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAdmitConflictFakeRecorder checks the event text as FakeRecorder
// renders it, with the kind of the object it is attached to.
func TestAdmitConflictFakeRecorder(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{
			name: "named pod",
			pod:  newPod(withMountPath("/cache")),
			want: "Warning PodPresetConflict Conflict on pod preset allow-database: duplicate mountPath /cache in container web" +
				" involvedObject{kind=Pod,apiVersion=v1}",
		},
		{
			name: "owned pod without name",
			pod:  newPod(withoutName, withControllerOwner, withMountPath("/cache")),
			want: "Warning PodPresetConflict Conflict on pod preset allow-database: duplicate mountPath /cache in container web" +
				" involvedObject{kind=ReplicaSet,apiVersion=apps/v1}",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(10)
			rec.IncludeObject = true
			p := newPlugin(&fakeLister{presets: map[string][]*v1alpha1.PodPreset{ns: {newPreset(ns, "allow-database")}}}, rec)
			if _, err := admit(t, p, request{}.attributes(tc.pod)); err != nil {
				t.Fatalf("Admit: %v", err)
			}
			var got []string
			for len(rec.Events) > 0 {
				got = append(got, <-rec.Events)
			}
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAdmitConflictWithoutWarningRecorder(t *testing.T) {
	// The API server always sets a warning recorder; without one, AddWarning
	// is a no-op and Admit still succeeds.
	rec := record.NewFakeRecorder(10)
	p := newPlugin(&fakeLister{presets: map[string][]*v1alpha1.PodPreset{ns: {newPreset(ns, "allow-database")}}}, rec)
	pod := newPod(withMountPath("/cache"))
	if err := p.Admit(context.Background(), request{}.attributes(pod), nil); err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if len(rec.Events) != 1 {
		t.Errorf("%d events, want 1", len(rec.Events))
	}
}

func TestValidateInitialization(t *testing.T) {
	p := New()
	if err := p.ValidateInitialization(); err == nil || !strings.Contains(err.Error(), "missing PodPreset lister") {
		t.Errorf("ValidateInitialization without lister = %v, want a missing lister error", err)
	}
	p.SetPodPresetLister(&fakeLister{})
	if err := p.ValidateInitialization(); err != nil {
		t.Errorf("ValidateInitialization with lister: %v", err)
	}
}

type initializerFunc func(admission.Interface)

func (f initializerFunc) Initialize(p admission.Interface) { f(p) }

func TestRegister(t *testing.T) {
	plugins := admission.NewPlugins()
	Register(plugins)
	if got := plugins.Registered(); !slices.Contains(got, PluginName) {
		t.Fatalf("Registered() = %q, want it to contain %q", got, PluginName)
	}
	if PluginName != "PodPreset" {
		t.Errorf("PluginName = %q, want PodPreset", PluginName)
	}

	// Without a lister, initialization fails.
	_, err := plugins.InitPlugin(PluginName, nil, admission.PluginInitializers{})
	if err == nil || !strings.Contains(err.Error(), "missing PodPreset lister") {
		t.Errorf("InitPlugin without lister: err = %v, want a missing lister error", err)
	}

	// An initializer that sets the lister (and recorder) makes it usable.
	lister := &fakeLister{presets: map[string][]*v1alpha1.PodPreset{ns: {newPreset(ns, "allow-database")}}}
	init := initializerFunc(func(p admission.Interface) {
		if w, ok := p.(WantsPodPresetLister); ok {
			w.SetPodPresetLister(lister)
		}
		if w, ok := p.(WantsEventRecorder); ok {
			w.SetEventRecorder(record.NewFakeRecorder(1))
		}
	})
	plugin, err := plugins.InitPlugin(PluginName, strings.NewReader(""), init)
	if err != nil {
		t.Fatalf("InitPlugin: %v", err)
	}
	m, ok := plugin.(admission.MutationInterface)
	if !ok {
		t.Fatalf("plug-in %T is not an admission.MutationInterface", plugin)
	}
	pod := newPod()
	if err := m.Admit(context.Background(), request{}.attributes(pod), nil); err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if diff := cmp.Diff(mutated(), pod); diff != "" {
		t.Errorf("pod (-want +got):\n%s", diff)
	}

	// The factory ignores its configuration.
	if _, err := plugins.InitPlugin(PluginName, strings.NewReader("anything"), init); err != nil {
		t.Errorf("InitPlugin with a configuration: %v", err)
	}
}
