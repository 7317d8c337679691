package oracle

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/rule"
)

// TestRefusalRules: the rule a refusal the model does not make is named
// by: a denial R4.2; the API server's refusal of a pod whose own volume
// was taken away R4.4; of a pod missing a volume a preset brings, the
// conflict the model's explanation names.
func TestRefusalRules(t *testing.T) {
	submitted := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "website"}, Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}
	notFound := func(name string) error {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Pod"}, "website", field.ErrorList{
			field.NotFound(field.NewPath("spec", "initContainers").Index(0).Child("volumeMounts").Index(0).Child("name"), name)})
	}
	for _, tc := range []struct {
		name  string
		err   error
		first rule.ID
	}{
		{"the pod's own volume taken away", notFound("cache"), rule.R4_4},
		{"a preset's volume left out", notFound("data"), rule.R3_5},
		{"a denial", apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "website", errors.New("not today")), rule.R4_2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusalRules(model.Outcome{}, submitted, tc.err); got[0] != tc.first {
				t.Errorf("rules %v, want %s first", got, tc.first)
			}
		})
	}
}
