package module

import (
	"context"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// fakeDeps are clients of an API server that holds presets.
func fakeDeps(t *testing.T, presets ...runtime.Object) Deps {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gvr := v1alpha1.SchemeGroupVersion.WithResource("podpresets")
	return Deps{
		Client:  fake.NewSimpleClientset(),
		Dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{gvr: "PodPresetList"}, presets...),
	}
}

// validating is a plug-in that only validates.
type validating struct{ *admission.Handler }

func (validating) Validate(context.Context, admission.Attributes, admission.ObjectInterfaces) error {
	return nil
}

// quiet mutates nothing and wants nothing.
type quiet struct{ *admission.Handler }

func (quiet) Admit(context.Context, admission.Attributes, admission.ObjectInterfaces) error {
	return nil
}

func TestStart(t *testing.T) {
	preset := &v1alpha1.PodPreset{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default", ResourceVersion: "7"},
		Spec:       v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{{Name: "DB_PORT", Value: "5432"}}},
	}
	registry := NewRegistry()
	registry.Register("quiet", func(io.Reader) (admission.Interface, error) {
		return quiet{admission.NewHandler(admission.Create)}, nil
	})
	registry.Register("validating", func(io.Reader) (admission.Interface, error) {
		return validating{admission.NewHandler(admission.Create)}, nil
	})
	tests := []struct {
		name    string
		module  string
		wantErr string
		// wantEnv is the env the module gives a pod of namespace default.
		wantEnv int
	}{
		{name: "the reference gets its lister from the initializer and applies the preset", module: Reference, wantEnv: 1},
		{name: "a plug-in that wants nothing runs", module: "quiet"},
		{name: "an unknown module names the known ones", module: "nope", wantErr: `unknown admission module "nope" (known: [quiet reference validating])`},
		{name: "a plug-in that does not mutate is refused", module: "validating", wantErr: "does not mutate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			running, err := registry.Start(context.Background(), tt.module, fakeDeps(t, preset))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer running.Stop()
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "website", Namespace: "default"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "website", Image: "ecorp/website"}}}}
			outcome, err := admit.Invoke(context.Background(), running.Plugin, nil, admit.PodCreate(pod, true, "test"))
			if err != nil || outcome.Denied != nil {
				t.Fatalf("admission: %v, %v", err, outcome.Denied)
			}
			if got := len(pod.Spec.Containers[0].Env); got != tt.wantEnv {
				t.Errorf("the pod has %d env vars, want %d", got, tt.wantEnv)
			}
			if tt.wantEnv > 0 && pod.Annotations[merge.AnnotationKey("db")] != "7" {
				t.Errorf("annotations %v, want the preset's", pod.Annotations)
			}
		})
	}
}
