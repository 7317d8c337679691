package webhook

import (
	"encoding/json"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AnnotatingHandler is a mutating webhook that sets one annotation on every
// object it is sent: another admission after the implementation's, whose
// change makes the API server reinvoke the implementation (R3.8).
func AnnotatingHandler(key, value string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxRequestBytes)).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "no AdmissionReview", http.StatusBadRequest)
			return
		}
		var obj struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(review.Request.Object.Raw, &obj)
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if obj.Metadata.Annotations[key] != value {
			var op map[string]any
			if obj.Metadata.Annotations == nil {
				op = map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]string{key: value}}
			} else {
				escaped := strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
				op = map[string]any{"op": "add", "path": "/metadata/annotations/" + escaped, "value": value}
			}
			patch, _ := json.Marshal([]any{op})
			pt := admissionv1.PatchTypeJSONPatch
			resp.Patch, resp.PatchType = patch, &pt
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp,
		})
	})
}
