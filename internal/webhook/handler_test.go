package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/tools/record"

	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/internal/webhook"
	podpreset "presetsim.dev/presetsim/presets/admission"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

const ns = "default"

// fakeLister is a static podpreset.Lister: namespace → presets.
type fakeLister struct {
	presets map[string][]*v1alpha1.PodPreset
	err     error
}

func (l *fakeLister) List(namespace string) ([]*v1alpha1.PodPreset, error) {
	return l.presets[namespace], l.err
}

// allowDatabase injects env DB_PORT=6379, volume cache and mount /cache into
// pods labelled app=website.
func allowDatabase(namespace string) *v1alpha1.PodPreset {
	return &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: "allow-database", Namespace: namespace, ResourceVersion: "7"},
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

func defaultLister() *fakeLister {
	return &fakeLister{presets: map[string][]*v1alpha1.PodPreset{ns: {allowDatabase(ns)}}}
}

// newHandler returns a Handler around the real plug-in.
func newHandler(l podpreset.Lister, rec record.EventRecorder) *webhook.Handler {
	p := podpreset.New()
	p.SetPodPresetLister(l)
	if rec != nil {
		p.SetEventRecorder(rec)
	}
	return webhook.NewHandler(p, manifest.Scheme())
}

// Pods as the API server sends them (JSON, with a few defaulted fields).
const (
	websitePod = `{"apiVersion":"v1","kind":"Pod",` +
		`"metadata":{"name":"website","namespace":"default","uid":"pod-uid","labels":{"app":"website"}},` +
		`"spec":{"containers":[{"name":"web","image":"nginx:1.27","resources":{},` +
		`"terminationMessagePath":"/dev/termination-log","imagePullPolicy":"IfNotPresent"}],` +
		`"restartPolicy":"Always","dnsPolicy":"ClusterFirst"},"status":{}}`
	websitePodWithEnv = `{"apiVersion":"v1","kind":"Pod",` +
		`"metadata":{"generateName":"website-","namespace":"default","labels":{"app":"website"},"annotations":{"team":"web"}},` +
		`"spec":{"volumes":[{"name":"data","emptyDir":{}}],` +
		`"initContainers":[{"name":"init","image":"busybox"}],` +
		`"containers":[{"name":"web","image":"nginx:1.27","env":[{"name":"LOG","value":"debug"}],` +
		`"volumeMounts":[{"name":"data","mountPath":"/data"}]}]}}`
	shopPod = `{"apiVersion":"v1","kind":"Pod",` +
		`"metadata":{"name":"shop","namespace":"default","labels":{"app":"shop"}},` +
		`"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}`
	conflictPod = `{"apiVersion":"v1","kind":"Pod",` +
		`"metadata":{"name":"website","namespace":"default","labels":{"app":"website"}},` +
		`"spec":{"volumes":[{"name":"data","emptyDir":{}}],` +
		`"containers":[{"name":"web","image":"nginx:1.27","volumeMounts":[{"name":"data","mountPath":"/cache"}]}]}}`
	configMap = `{"apiVersion":"v1","kind":"ConfigMap",` +
		`"metadata":{"name":"website","namespace":"default","labels":{"app":"website"}},"data":{"k":"v"}}`
	widget = `{"apiVersion":"example.com/v1","kind":"Widget",` +
		`"metadata":{"name":"website","namespace":"default","labels":{"app":"website"}},"spec":{"size":3}}`
)

const conflictMessage = "Conflict on pod preset allow-database: duplicate mountPath /cache in container web"

var (
	podKind      = metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}
	podsResource = metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// reviewRequest describes an AdmissionRequest; the zero value (plus an
// object) is a CREATE of core pods in ns.
type reviewRequest struct {
	uid         types.UID
	op          admissionv1.Operation
	kind        metav1.GroupVersionKind
	resource    metav1.GroupVersionResource
	subresource string
	namespace   string
	object      string
	oldObject   string
	dryRun      bool
}

func (r reviewRequest) body(t testing.TB) []byte {
	t.Helper()
	if r.uid == "" {
		r.uid = "e911857d-c318-11e8-bbad-025000000001"
	}
	if r.op == "" {
		r.op = admissionv1.Create
	}
	if r.kind.Kind == "" {
		r.kind = podKind
	}
	if r.resource.Resource == "" {
		r.resource = podsResource
	}
	if r.namespace == "" {
		r.namespace = ns
	}
	req := &admissionv1.AdmissionRequest{
		UID:         r.uid,
		Kind:        r.kind,
		Resource:    r.resource,
		SubResource: r.subresource,
		Namespace:   r.namespace,
		Operation:   r.op,
		DryRun:      &r.dryRun,
	}
	if r.object != "" {
		req.Object.Raw = []byte(r.object)
	}
	if r.oldObject != "" {
		req.OldObject.Raw = []byte(r.oldObject)
	}
	b, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request:  req,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends body to the handler through a real HTTP server and decodes the
// AdmissionReview answered.
func post(t *testing.T, h http.Handler, body []byte) *admissionv1.AdmissionReview {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/mutate", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d (%s), want 200", resp.StatusCode, data)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	out := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("unable to decode the response %s: %v", data, err)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" {
		t.Errorf("response is %s %s, want admission.k8s.io/v1 AdmissionReview", out.APIVersion, out.Kind)
	}
	if out.Response == nil {
		t.Fatalf("no response in %s", data)
	}
	return out
}

// applyPatch applies the response's JSON patch to raw and decodes the pod.
func applyPatch(t *testing.T, raw string, resp *admissionv1.AdmissionResponse) *corev1.Pod {
	t.Helper()
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("patchType = %v, want JSONPatch", resp.PatchType)
	}
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatalf("undecodable patch %s: %v", resp.Patch, err)
	}
	patched, err := patch.Apply([]byte(raw))
	if err != nil {
		t.Fatalf("patch %s does not apply: %v", resp.Patch, err)
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(patched, pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

func decodePod(t *testing.T, raw string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{}
	if err := json.Unmarshal([]byte(raw), pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

// withAllowDatabase is what allow-database (resourceVersion 7) adds to pod.
func withAllowDatabase(pod *corev1.Pod) *corev1.Pod {
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[merge.AnnotationKey("allow-database")] = "7"
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
		Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}},
	})
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			cs[i].Env = append(cs[i].Env, corev1.EnvVar{Name: "DB_PORT", Value: "6379"})
			cs[i].VolumeMounts = append(cs[i].VolumeMounts, corev1.VolumeMount{Name: "cache", MountPath: "/cache"})
		}
	}
	return pod
}

func TestHandlerMutatesPod(t *testing.T) {
	tests := []struct {
		name   string
		req    reviewRequest
		events int // events the FakeRecorder must have
	}{
		{name: "named pod", req: reviewRequest{uid: "uid-1", object: websitePod}},
		{name: "pod with generateName, existing annotations, env, mounts and init containers",
			req: reviewRequest{uid: "uid-2", object: websitePodWithEnv}},
		{name: "server-side dry-run is mutated the same way (R2.1)",
			req: reviewRequest{uid: "uid-3", object: websitePod, dryRun: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(10)
			out := post(t, newHandler(defaultLister(), rec), tc.req.body(t))
			resp := out.Response
			if resp.UID != tc.req.uid {
				t.Errorf("UID = %q, want %q", resp.UID, tc.req.uid)
			}
			if !resp.Allowed {
				t.Fatalf("not allowed: %+v", resp.Result)
			}
			if len(resp.Warnings) != 0 {
				t.Errorf("warnings = %q, want none", resp.Warnings)
			}
			got := applyPatch(t, tc.req.object, resp)
			want := withAllowDatabase(decodePod(t, tc.req.object))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("patched pod (-want +got):\n%s", diff)
			}
			// The patch holds the plug-in's changes only.
			var ops []struct {
				Op, Path string
			}
			if err := json.Unmarshal(resp.Patch, &ops); err != nil {
				t.Fatal(err)
			}
			for _, op := range ops {
				if !strings.HasPrefix(op.Path, "/metadata/annotations") &&
					!strings.HasPrefix(op.Path, "/spec/volumes") &&
					!strings.HasPrefix(op.Path, "/spec/containers/0/") &&
					!strings.HasPrefix(op.Path, "/spec/initContainers/0/") {
					t.Errorf("unexpected patch operation %s %s in %s", op.Op, op.Path, resp.Patch)
				}
			}
			if len(rec.Events) != tc.events {
				t.Errorf("%d events, want %d", len(rec.Events), tc.events)
			}
		})
	}
}

// TestHandlerDoesNotPatch covers requests the plug-in leaves alone: allowed,
// without a patch.
func TestHandlerDoesNotPatch(t *testing.T) {
	excluded := strings.Replace(websitePod, `"labels":{"app":"website"}`,
		`"labels":{"app":"website"},"annotations":{"podpreset.admission.kubernetes.io/exclude":"true"}`, 1)
	tests := []struct {
		name   string
		lister *fakeLister
		req    reviewRequest
	}{
		{name: "no matching preset", req: reviewRequest{object: shopPod}},
		{name: "presets of another namespace", req: reviewRequest{object: websitePod, namespace: "other"}},
		{name: "excluded pod", req: reviewRequest{object: excluded}},
		{name: "already mutated pod (reinvocation, R3.8)",
			req: reviewRequest{object: func() string {
				b, err := json.Marshal(withAllowDatabase(decodePod(t, websitePod)))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}()}},
		{name: "UPDATE", req: reviewRequest{op: admissionv1.Update, object: websitePod, oldObject: websitePod}},
		{name: "DELETE", req: reviewRequest{op: admissionv1.Delete, oldObject: websitePod}},
		{name: "pods/status", req: reviewRequest{op: admissionv1.Update, subresource: "status", object: websitePod, oldObject: websitePod}},
		{name: "CREATE pods/ephemeralcontainers", req: reviewRequest{subresource: "ephemeralcontainers", object: websitePod}},
		{name: "ConfigMap", req: reviewRequest{
			kind:     metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			resource: metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			object:   configMap,
		}},
		{name: "kind not in the scheme (unstructured)", req: reviewRequest{
			kind:     metav1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
			resource: metav1.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
			object:   widget,
		}},
		{name: "lister error on an ignored request is never seen",
			lister: &fakeLister{err: errors.New("boom")},
			req:    reviewRequest{op: admissionv1.Update, object: websitePod, oldObject: websitePod}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lister := tc.lister
			if lister == nil {
				lister = defaultLister()
			}
			out := post(t, newHandler(lister, record.NewFakeRecorder(10)), tc.req.body(t))
			resp := out.Response
			if !resp.Allowed {
				t.Errorf("not allowed: %+v", resp.Result)
			}
			if resp.Patch != nil || resp.PatchType != nil {
				t.Errorf("patch %s (type %v), want none", resp.Patch, resp.PatchType)
			}
			if len(resp.Warnings) != 0 {
				t.Errorf("warnings = %q, want none", resp.Warnings)
			}
		})
	}
}

func TestHandlerConflictWarnings(t *testing.T) {
	tests := []struct {
		name       string
		dryRun     bool
		wantEvents []string
	}{
		{name: "create", wantEvents: []string{"Warning PodPresetConflict " + conflictMessage}},
		{name: "dry-run: no event", dryRun: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.NewFakeRecorder(10)
			out := post(t, newHandler(defaultLister(), rec),
				reviewRequest{uid: "uid-c", object: conflictPod, dryRun: tc.dryRun}.body(t))
			resp := out.Response
			if !resp.Allowed {
				t.Fatalf("not allowed: %+v (a conflict must not refuse the pod)", resp.Result)
			}
			if resp.UID != "uid-c" {
				t.Errorf("UID = %q, want uid-c", resp.UID)
			}
			if resp.Patch != nil || resp.PatchType != nil {
				t.Errorf("patch %s, want none on conflict (R4.2)", resp.Patch)
			}
			if diff := cmp.Diff([]string{conflictMessage}, resp.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			var events []string
			for len(rec.Events) > 0 {
				events = append(events, <-rec.Events)
			}
			if diff := cmp.Diff(tc.wantEvents, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// errPlugin refuses every request it handles.
type errPlugin struct {
	err   error
	mu    sync.Mutex
	calls int
}

func (p *errPlugin) Handles(op admission.Operation) bool { return op == admission.Create }

func (p *errPlugin) Admit(context.Context, admission.Attributes, admission.ObjectInterfaces) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	return p.err
}

func TestHandlerPluginError(t *testing.T) {
	t.Run("lister error: forbidden", func(t *testing.T) {
		h := newHandler(&fakeLister{err: errors.New("cache not synced")}, nil)
		resp := post(t, h, reviewRequest{uid: "uid-e", object: websitePod}.body(t)).Response
		if resp.Allowed {
			t.Fatal("allowed, want refused")
		}
		if resp.UID != "uid-e" {
			t.Errorf("UID = %q, want uid-e", resp.UID)
		}
		if resp.Result == nil {
			t.Fatal("no status")
		}
		if resp.Result.Code != http.StatusForbidden || resp.Result.Reason != metav1.StatusReasonForbidden {
			t.Errorf("status code %d reason %q, want 403 Forbidden", resp.Result.Code, resp.Result.Reason)
		}
		for _, want := range []string{`unable to list PodPresets of namespace "default"`, "cache not synced"} {
			if !strings.Contains(resp.Result.Message, want) {
				t.Errorf("message %q does not contain %q", resp.Result.Message, want)
			}
		}
		if resp.Patch != nil {
			t.Errorf("patch %s on a refused request", resp.Patch)
		}
	})
	t.Run("plain error", func(t *testing.T) {
		p := &errPlugin{err: errors.New("boom")}
		h := webhook.NewHandler(p, manifest.Scheme())
		resp := post(t, h, reviewRequest{object: websitePod}.body(t)).Response
		if resp.Allowed {
			t.Fatal("allowed, want refused")
		}
		want := &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: "boom"}
		if diff := cmp.Diff(want, resp.Result); diff != "" {
			t.Errorf("status (-want +got):\n%s", diff)
		}
	})
	t.Run("operation the plug-in does not handle", func(t *testing.T) {
		p := &errPlugin{err: errors.New("boom")}
		h := webhook.NewHandler(p, manifest.Scheme())
		resp := post(t, h, reviewRequest{op: admissionv1.Update, object: websitePod, oldObject: websitePod}.body(t)).Response
		if !resp.Allowed {
			t.Errorf("refused %+v, want allowed", resp.Result)
		}
		if p.calls != 0 {
			t.Errorf("Admit called %d times for an operation the plug-in does not handle", p.calls)
		}
	})
}

func TestHandlerBadRequests(t *testing.T) {
	big := []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","object":{"pad":"` +
		strings.Repeat("a", webhook.MaxRequestBytes) + `"}}}`)
	tests := []struct {
		name       string
		method     string
		body       []byte
		wantStatus int
		wantText   string
	}{
		{name: "GET", method: http.MethodGet, wantStatus: http.StatusMethodNotAllowed, wantText: "only POST"},
		{name: "PUT", method: http.MethodPut, body: reviewRequest{object: websitePod}.body(t), wantStatus: http.StatusMethodNotAllowed},
		{name: "empty body", method: http.MethodPost, wantStatus: http.StatusBadRequest, wantText: "malformed AdmissionReview"},
		{name: "not JSON", method: http.MethodPost, body: []byte("<xml/>"), wantStatus: http.StatusBadRequest, wantText: "malformed AdmissionReview"},
		{name: "truncated JSON", method: http.MethodPost, body: reviewRequest{object: websitePod}.body(t)[:40],
			wantStatus: http.StatusBadRequest, wantText: "malformed AdmissionReview"},
		{name: "no request", method: http.MethodPost, body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`),
			wantStatus: http.StatusBadRequest, wantText: "no request"},
		{name: "object that is not a pod", method: http.MethodPost,
			body:       reviewRequest{object: `{"apiVersion":"v1","kind":"Pod","spec":5}`}.body(t),
			wantStatus: http.StatusBadRequest, wantText: "unable to decode object"},
		{name: "oldObject that is not a pod", method: http.MethodPost,
			body:       reviewRequest{op: admissionv1.Update, object: websitePod, oldObject: `{"metadata":[]}`}.body(t),
			wantStatus: http.StatusBadRequest, wantText: "unable to decode oldObject"},
		{name: "oversized body", method: http.MethodPost, body: big,
			wantStatus: http.StatusBadRequest, wantText: "request body too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHandler(defaultLister(), nil)
			r := httptest.NewRequest(tc.method, "/mutate", bytes.NewReader(tc.body))
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.wantStatus {
				t.Errorf("status %d (%s), want %d", w.Code, w.Body, tc.wantStatus)
			}
			if !strings.Contains(w.Body.String(), tc.wantText) {
				t.Errorf("body %q does not contain %q", w.Body, tc.wantText)
			}
		})
	}
}

// TestHandlerReview calls Review directly, as an in-process caller would.
func TestHandlerReview(t *testing.T) {
	h := newHandler(defaultLister(), nil)
	dry := false
	resp, err := h.Review(context.Background(), &admissionv1.AdmissionRequest{
		UID: "direct", Kind: podKind, Resource: podsResource, Namespace: ns, Operation: admissionv1.Create,
		Object: runtime.RawExtension{Raw: []byte(websitePod)}, DryRun: &dry,
	})
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	if !resp.Allowed || resp.UID != "direct" {
		t.Fatalf("response %+v, want allowed with UID direct", resp)
	}
	got := applyPatch(t, websitePod, resp)
	if diff := cmp.Diff(withAllowDatabase(decodePod(t, websitePod)), got); diff != "" {
		t.Errorf("patched pod (-want +got):\n%s", diff)
	}
}

// FuzzHandler: whatever the body, the handler answers 200 with a review or
// 400, and never panics.
func FuzzHandler(f *testing.F) {
	f.Add(reviewRequest{object: websitePod}.body(f))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","resource":{"version":"v1","resource":"pods"},"object":{"kind":"Pod","apiVersion":"v1","metadata":{"annotations":{"a":1}}}}}`))
	f.Add([]byte(`{"request":{}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		h := newHandler(defaultLister(), nil)
		r := httptest.NewRequest(http.MethodPost, "/mutate", bytes.NewReader(body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK && w.Code != http.StatusBadRequest {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	})
}

// panicPlugin panics on every request it handles.
type panicPlugin struct{}

func (panicPlugin) Handles(op admission.Operation) bool { return op == admission.Create }

func (panicPlugin) Admit(context.Context, admission.Attributes, admission.ObjectInterfaces) error {
	var m map[string]bool
	m["x"] = true // a map never made
	return nil
}

// TestHandlerNotesFailures: a request the handler answers with an error
// (the plug-in panicked) is noted under its namespace (R5.3); a refusal is
// an answer, not a failure.
func TestHandlerNotesFailures(t *testing.T) {
	var f webhook.Failures
	h := webhook.NewHandler(panicPlugin{}, manifest.Scheme()).NoteFailures(&f)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mutate-pods", bytes.NewReader(reviewRequest{uid: "u", object: websitePod}.body(t))))
	if rec.Code == http.StatusOK {
		t.Fatalf("a panicking plug-in answered 200")
	}
	got := f.In("default")
	if len(got) != 1 || !strings.Contains(got[0], "CREATE of") || !strings.Contains(got[0], "panicked") {
		t.Errorf("failures %q, want one naming the request and the panic", got)
	}
	refusing := webhook.NewHandler(&errPlugin{err: errors.New("no")}, manifest.Scheme()).NoteFailures(&f)
	_ = post(t, refusing, reviewRequest{object: websitePod}.body(t))
	if n := len(f.In("default")); n != 1 {
		t.Errorf("a refusal was noted as a failure (%d noted)", n)
	}
	for i := 0; i < webhook.MaxFailures+10; i++ {
		f.Note("flood", "x")
	}
	if n := len(f.In("flood")); n != webhook.MaxFailures {
		t.Errorf("%d kept, want at most %d", n, webhook.MaxFailures)
	}
}
