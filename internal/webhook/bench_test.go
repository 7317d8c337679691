package webhook_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// BenchmarkHandler measures one AdmissionReview through the handler and the
// reference plug-in (decode, select, merge, patch, encode) with 100 presets
// in the namespace, of which 1 or none select the pod: the webhook's own
// share of what it adds to a pod create.
func BenchmarkHandler(b *testing.B) {
	for _, matching := range []int{0, 1} {
		b.Run(fmt.Sprintf("presets=100/matching=%d", matching), func(b *testing.B) {
			presets := make([]*v1alpha1.PodPreset, 100)
			for i := range presets {
				name := fmt.Sprintf("preset-%03d", i)
				selector := map[string]string{"app": "other"}
				if i < matching {
					selector = map[string]string{"app": "website"}
				}
				presets[i] = &v1alpha1.PodPreset{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), ResourceVersion: "1"},
					Spec: v1alpha1.PodPresetSpec{
						Selector:     metav1.LabelSelector{MatchLabels: selector},
						Env:          []corev1.EnvVar{{Name: "VAR_" + name[7:], Value: "x"}},
						Volumes:      []corev1.Volume{{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
						VolumeMounts: []corev1.VolumeMount{{Name: name, MountPath: "/mnt/" + name}},
					},
				}
			}
			h := newHandler(&fakeLister{presets: map[string][]*v1alpha1.PodPreset{ns: presets}}, nil)
			body := reviewRequest{object: websitePod}.body(b)
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mutate", bytes.NewReader(body)))
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
