package admission

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// storedPreset is newPreset as the API server stores it: with a UID and the
// given resourceVersion, and the env var DB_PORT=port.
func storedPreset(name, resourceVersion, port string, selector metav1.LabelSelector) *v1alpha1.PodPreset {
	p := newPreset(ns, name)
	p.UID = types.UID("uid-" + name)
	p.ResourceVersion = resourceVersion
	p.Spec.Env[0].Value = port
	p.Spec.Selector = selector
	return p
}

// TestAdmitSeesPresetChanges admits pods one after another on one plug-in
// while its lister's presets change, as an informer's do: each pod must get
// the presets as they are at that moment, whatever the plug-in remembers.
func TestAdmitSeesPresetChanges(t *testing.T) {
	website := metav1.LabelSelector{MatchLabels: map[string]string{"app": "website"}}
	database := metav1.LabelSelector{MatchLabels: map[string]string{"app": "database"}}
	// step is the presets of the namespace when a pod is created, and the
	// DB_PORT (with the annotation's resourceVersion) the pod must get; ""
	// for no mutation.
	type step struct {
		presets []*v1alpha1.PodPreset
		port    string
		rv      string
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "the selector changes",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("db", "1", "6379", website)}, port: "6379", rv: "1"},
				{presets: []*v1alpha1.PodPreset{storedPreset("db", "2", "6379", database)}},
				{presets: []*v1alpha1.PodPreset{storedPreset("db", "3", "6379", website)}, port: "6379", rv: "3"},
			},
		},
		{
			name: "the items change",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("db", "1", "6379", website)}, port: "6379", rv: "1"},
				{presets: []*v1alpha1.PodPreset{storedPreset("db", "2", "5432", website)}, port: "5432", rv: "2"},
			},
		},
		{
			name: "the preset is deleted and recreated",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("db", "1", "6379", website)}, port: "6379", rv: "1"},
				{presets: nil},
				{presets: []*v1alpha1.PodPreset{func() *v1alpha1.PodPreset {
					p := storedPreset("db", "1", "1111", website)
					p.UID = "recreated"
					return p
				}()}, port: "1111", rv: "1"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lister := &fakeLister{}
			p := newPlugin(lister, nil)
			for i, s := range tc.steps {
				lister.presets = map[string][]*v1alpha1.PodPreset{ns: s.presets}
				pod := newPod()
				if _, err := admit(t, p, request{}.attributes(pod)); err != nil {
					t.Fatalf("step %d: Admit() error = %v", i, err)
				}
				want := newPod()
				if s.port != "" {
					want = mutated()
					want.Spec.Containers[0].Env[0].Value = s.port
					delete(want.Annotations, merge.AnnotationKey("allow-database"))
					want.Annotations[merge.AnnotationKey("db")] = s.rv
				}
				if diff := cmp.Diff(want, pod); diff != "" {
					t.Errorf("step %d: pod mismatch (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// BenchmarkAdmit measures the plug-in's work per pod (not the webhook's
// decoding and patching) with 100 presets in the namespace, as stored (with
// UIDs), as the informer caches them: none matching, one matching, all
// matching.
func BenchmarkAdmit(b *testing.B) {
	for _, matching := range []int{0, 1, 100} {
		presets := make([]*v1alpha1.PodPreset, 100)
		for i := range presets {
			name := fmt.Sprintf("preset-%03d", i)
			selector := metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
			if i < matching {
				selector = metav1.LabelSelector{MatchLabels: map[string]string{"app": "website"}}
			}
			p := &v1alpha1.PodPreset{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), ResourceVersion: "7"},
				Spec: v1alpha1.PodPresetSpec{
					Selector:     selector,
					Env:          []corev1.EnvVar{{Name: fmt.Sprintf("VAR_%03d", i), Value: "x"}},
					Volumes:      []corev1.Volume{{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}}},
					VolumeMounts: []corev1.VolumeMount{{Name: name, MountPath: "/etc/" + name}},
				},
			}
			presets[i] = p
		}
		b.Run(fmt.Sprintf("presets=100/matching=%d", matching), func(b *testing.B) {
			p := newPlugin(staticLister(presets), nil)
			pod := newPod()
			b.ReportAllocs()
			for b.Loop() {
				in := pod.DeepCopy() // as the webhook decodes a new pod per request: 6 of the allocations
				if err := p.Admit(context.Background(), request{}.attributes(in), nil); err != nil {
					b.Fatal(err)
				}
				if got := len(in.Annotations); got != matching {
					b.Fatalf("%d presets applied, want %d", got, matching)
				}
			}
		})
	}
}

// staticLister lists the same presets for every namespace, and records
// nothing.
type staticLister []*v1alpha1.PodPreset

func (l staticLister) List(string) ([]*v1alpha1.PodPreset, error) { return l, nil }
