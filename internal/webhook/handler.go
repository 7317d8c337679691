package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"gomodules.xyz/jsonpatch/v2"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"

	"presetsim.dev/presetsim/internal/admit"
)

// MaxRequestBytes bounds the size of an AdmissionReview request body. The API
// server caps objects at about 3 MiB; a review holds up to two of them.
const MaxRequestBytes = 7 << 20

// Handler serves one admission plug-in as a webhook.
type Handler struct {
	failures *Failures // nil: not noted
	plugin   admission.MutationInterface
	scheme   *runtime.Scheme
	objects  admission.ObjectInterfaces
}

// NewHandler returns a webhook handler for plugin. Objects of kinds registered
// in scheme are passed to the plug-in typed; others as unstructured.
func NewHandler(plugin admission.MutationInterface, scheme *runtime.Scheme) *Handler {
	return &Handler{plugin: plugin, scheme: scheme, objects: admission.NewObjectInterfacesFromScheme(scheme)}
}

// NoteFailures makes the handler note in f every request it answers with
// an error instead of an AdmissionReview (a plug-in that panicked, an
// object it cannot decode), and returns the handler.
func (h *Handler) NoteFailures(f *Failures) *Handler {
	h.failures = f
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "admission webhook: only POST is accepted", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	if err != nil {
		http.Error(w, fmt.Sprintf("admission webhook: unable to read request: %v", err), http.StatusBadRequest)
		return
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(body, review); err != nil || review.Request == nil {
		if err == nil {
			err = fmt.Errorf("no request")
		}
		http.Error(w, fmt.Sprintf("admission webhook: malformed AdmissionReview: %v", err), http.StatusBadRequest)
		return
	}
	resp, err := h.Review(r.Context(), review.Request)
	if err != nil {
		if h.failures != nil {
			h.failures.Note(review.Request.Namespace, describeRequest(review.Request)+": "+err.Error())
		}
		http.Error(w, fmt.Sprintf("admission webhook: %v", err), http.StatusBadRequest)
		return
	}
	out := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// Review admits one request. An error means the request itself is malformed;
// a refusal by the plug-in is a response with Allowed false.
func (h *Handler) Review(ctx context.Context, req *admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	gvk := schema.GroupVersionKind(req.Kind)
	obj, err := h.decode(req.Object.Raw, gvk)
	if err != nil {
		return nil, fmt.Errorf("unable to decode object: %w", err)
	}
	oldObj, err := h.decode(req.OldObject.Raw, gvk)
	if err != nil {
		return nil, fmt.Errorf("unable to decode oldObject: %w", err)
	}
	var original runtime.Object
	if obj != nil {
		original = obj.DeepCopyObject()
	}
	outcome, err := admit.Invoke(ctx, h.plugin, h.objects, admit.Request{
		Object: obj, OldObject: oldObj, Kind: gvk, Resource: schema.GroupVersionResource(req.Resource), Subresource: req.SubResource,
		Namespace: req.Namespace, Name: req.Name, Operation: admission.Operation(req.Operation),
		DryRun: req.DryRun != nil && *req.DryRun, User: userInfo(req.UserInfo),
	})
	if err != nil {
		return nil, err
	}
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: outcome.Denied == nil, Warnings: outcome.Warnings}
	if outcome.Denied != nil {
		resp.Result = statusOf(outcome.Denied)
	}
	if !resp.Allowed || obj == nil {
		return resp, nil
	}
	patch, err := h.patch(original, obj)
	if err != nil || patch == nil {
		return resp, err
	}
	pt := admissionv1.PatchTypeJSONPatch
	resp.Patch, resp.PatchType = patch, &pt
	return resp, nil
}

// decode returns a typed object for kinds in the scheme, unstructured for
// others, and nil for an empty raw object.
func (h *Handler) decode(raw []byte, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	obj, err := h.scheme.New(gvk)
	if err != nil {
		obj = &unstructured.Unstructured{}
	}
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// patch is the JSON patch from original to mutated, nil if they are equal:
// for a pod changed only where a PodPreset writes, podPatch's; otherwise
// the diff of the two encoded objects.
func (h *Handler) patch(original, mutated runtime.Object) ([]byte, error) {
	before, isPod := original.(*corev1.Pod)
	after, stillPod := mutated.(*corev1.Pod)
	if isPod && stillPod {
		if ops, ok := podPatch(before, after); ok {
			if len(ops) == 0 {
				return nil, nil
			}
			return json.Marshal(ops)
		}
	}
	if equality.Semantic.DeepEqual(original, mutated) {
		return nil, nil
	}
	return jsonPatch(original, mutated)
}

// jsonPatch is the patch from original to mutated. Both are encoded the same
// way, so the patch holds the plug-in's changes and nothing that a round trip
// through the Go types would add or drop.
func jsonPatch(original, mutated runtime.Object) ([]byte, error) {
	ops, err := patchOps(original, mutated)
	if err != nil {
		return nil, err
	}
	return json.Marshal(ops)
}

// patchOps are jsonPatch's operations.
func patchOps(original, mutated runtime.Object) ([]jsonpatch.Operation, error) {
	before, err := json.Marshal(original)
	if err != nil {
		return nil, err
	}
	after, err := json.Marshal(mutated)
	if err != nil {
		return nil, err
	}
	ops, err := jsonpatch.CreatePatch(before, after)
	if err != nil {
		return nil, fmt.Errorf("unable to create patch: %w", err)
	}
	return ops, nil
}

func statusOf(err error) *metav1.Status {
	if s, ok := err.(apierrors.APIStatus); ok {
		st := s.Status()
		return &st
	}
	return &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: err.Error()}
}

func userInfo(u authenticationv1.UserInfo) user.Info {
	extra := make(map[string][]string, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = v
	}
	return &user.DefaultInfo{Name: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra}
}
