package merge

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// storedPreset is a preset as an informer holds it: with a UID and a
// resourceVersion.
func storedPreset(name, uid, resourceVersion string, selector metav1.LabelSelector) *v1alpha1.PodPreset {
	p := newPreset(name, resourceVersion, v1alpha1.PodPresetSpec{Selector: selector, Env: []corev1.EnvVar{env("FROM_"+name, resourceVersion)}})
	p.UID = types.UID(uid)
	return p
}

func invalidSelector() metav1.LabelSelector {
	return metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
}

func TestCacheSelect(t *testing.T) {
	// step is one call of Cache.Select with the pod newPod().
	type step struct {
		presets []*v1alpha1.PodPreset
		want    []string
		wantErr string // a substring of the error; "" for none
		wantLen int    // Cache.Len() afterwards
	}
	website, database := matchLabels("app", "website"), matchLabels("app", "database")
	// unstored is changed in memory between two steps, as an offline
	// caller may do; without a UID and resourceVersion it is never cached.
	unstored := newPreset("unstored", "", v1alpha1.PodPresetSpec{Selector: website})
	unstoredLater := unstored.DeepCopy()
	unstoredLater.Spec.Selector = database
	tests := []struct {
		name     string
		maxSize  int
		steps    []step
		wantSame bool // the entry of uid "a" is the same object after every step
	}{
		{
			name: "a stored preset is parsed once",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "1", website)}, want: []string{"a"}, wantLen: 1},
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "1", website)}, want: []string{"a"}, wantLen: 1},
			},
			wantSame: true,
		},
		{
			name: "a changed preset (new resourceVersion) is parsed again",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "1", website)}, want: []string{"a"}, wantLen: 1},
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "2", database)}, want: nil, wantLen: 1},
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "3", website)}, want: []string{"a"}, wantLen: 1},
			},
		},
		{
			name: "a preset recreated under the same name has a new UID",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "1", database)}, want: nil, wantLen: 1},
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a-again", "1", website)}, want: []string{"a"}, wantLen: 2},
			},
		},
		{
			name: "presets without UID or resourceVersion are not remembered",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{unstored, storedPreset("no-rv", "no-rv", "", website), storedPreset("no-uid", "", "1", website)},
					want: []string{"no-rv", "no-uid", "unstored"}, wantLen: 0},
				{presets: []*v1alpha1.PodPreset{unstoredLater}, want: nil, wantLen: 0},
			},
		},
		{
			name: "an invalid selector is remembered with its error",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("bad", "bad", "1", invalidSelector()), storedPreset("a", "a", "1", website)},
					want: []string{"a"}, wantErr: "pod preset default/bad has an invalid selector", wantLen: 2},
				{presets: []*v1alpha1.PodPreset{storedPreset("bad", "bad", "1", invalidSelector())},
					wantErr: "pod preset default/bad has an invalid selector", wantLen: 2},
				{presets: []*v1alpha1.PodPreset{storedPreset("bad", "bad", "2", website)}, want: []string{"bad"}, wantLen: 2},
			},
		},
		{
			name:    "a full cache starts over",
			maxSize: 2,
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "1", website), storedPreset("b", "b", "1", website)},
					want: []string{"a", "b"}, wantLen: 2},
				{presets: []*v1alpha1.PodPreset{storedPreset("c", "c", "1", database)}, wantLen: 1},
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "1", website), storedPreset("c", "c", "1", database)},
					want: []string{"a"}, wantLen: 2},
			},
		},
		{
			name:    "replacing an entry does not count as growing",
			maxSize: 1,
			steps: []step{
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "1", website)}, want: []string{"a"}, wantLen: 1},
				{presets: []*v1alpha1.PodPreset{storedPreset("a", "a", "2", website)}, want: []string{"a"}, wantLen: 1},
			},
		},
		{
			name: "nil presets are ignored",
			steps: []step{
				{presets: []*v1alpha1.PodPreset{nil, storedPreset("a", "a", "1", website), nil}, want: []string{"a"}, wantLen: 1},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache()
			if tc.maxSize > 0 {
				c.max = tc.maxSize
			}
			var first *entry
			for i, s := range tc.steps {
				got, err := c.Select(newPod(), s.presets)
				if diff := cmp.Diff(s.want, names(got)); diff != "" {
					t.Errorf("step %d: Select() mismatch (-want +got):\n%s", i, diff)
				}
				switch {
				case s.wantErr == "" && err != nil:
					t.Errorf("step %d: Select() error = %v, want none", i, err)
				case s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)):
					t.Errorf("step %d: Select() error = %v, want one containing %q", i, err, s.wantErr)
				}
				if got := c.Len(); got != s.wantLen {
					t.Errorf("step %d: Len() = %d, want %d", i, got, s.wantLen)
				}
				if tc.wantSame {
					e := c.entries["a"]
					if first == nil {
						first = e
					}
					if e != first {
						t.Errorf("step %d: the entry of preset a was made again", i)
					}
				}
			}
		})
	}
}

func TestCacheNil(t *testing.T) {
	var c *Cache
	presets := []*v1alpha1.PodPreset{storedPreset("a", "a", "1", matchLabels("app", "website"))}
	got, err := c.Select(newPod(), presets)
	if err != nil || len(got) != 1 {
		t.Fatalf("nil Cache: Select() = %v, %v; want preset a", names(got), err)
	}
	r := c.Apply(newPod(withContainers(newContainer("c"))), got)
	if r.Pod == nil || !slices.Equal(r.Applied, []string{"a"}) || r.Pod.Annotations[AnnotationKey("a")] != "1" ||
		!slices.Equal(r.Pod.Spec.Containers[0].Env, []corev1.EnvVar{env("FROM_a", "1")}) {
		t.Errorf("nil Cache: Apply() = %+v, want preset a applied (annotation, FROM_a=1)", r)
	}
	if c.Len() != 0 {
		t.Errorf("nil Cache: Len() = %d", c.Len())
	}
	if r := c.Apply(nil, got); r.Pod != nil {
		t.Errorf("nil Cache: Apply(nil pod) = %+v, want an empty Result", r)
	}
}

func TestCacheApply(t *testing.T) {
	// secretVolumePreset needs defaulting (defaultMode), so the Cache keeps
	// a defaulted copy of it.
	secretVolumePreset := func(resourceVersion, secret string) *v1alpha1.PodPreset {
		p := storedPreset("s", "s", resourceVersion, metav1.LabelSelector{})
		p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}}
		p.Spec.VolumeMounts = []corev1.VolumeMount{mount("v", "/v")}
		return p
	}
	tests := []struct {
		name    string
		presets [][]*v1alpha1.PodPreset // one Apply per element, on the same Cache
	}{
		{
			name:    "defaulted once, injected every time",
			presets: [][]*v1alpha1.PodPreset{{secretVolumePreset("1", "x")}, {secretVolumePreset("1", "x")}, {secretVolumePreset("1", "x")}},
		},
		{
			name:    "a changed preset is defaulted again",
			presets: [][]*v1alpha1.PodPreset{{secretVolumePreset("1", "x")}, {secretVolumePreset("2", "y")}},
		},
		{
			name: "several presets, some not stored",
			presets: [][]*v1alpha1.PodPreset{
				{secretVolumePreset("1", "x"), storedPreset("a", "a", "1", metav1.LabelSelector{}), storedPreset("b", "", "", metav1.LabelSelector{})},
				{storedPreset("a", "a", "1", metav1.LabelSelector{}), secretVolumePreset("1", "x")},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache()
			for i, presets := range tc.presets {
				pod := newPod(withContainers(newContainer("a"), newContainer("b")))
				want := Apply(pod, presets)
				got := c.Apply(pod, presets)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("Apply %d: Cache.Apply() differs from Apply() (-want +got):\n%s", i, diff)
				}
				// The result must not share the cached defaulted copy:
				// scribbling over it must not change the next result.
				for _, v := range got.Pod.Spec.Volumes {
					if v.Secret != nil {
						*v.Secret.DefaultMode = 0o777
						v.Secret.SecretName = "scribbled"
					}
				}
				if diff := cmp.Diff(want, c.Apply(pod, presets)); diff != "" {
					t.Fatalf("Apply %d: a changed result changed the Cache (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// TestCacheConcurrent runs Select and Apply from several goroutines while
// presets change, for the race detector.
func TestCacheConcurrent(t *testing.T) {
	c := NewCache()
	c.max = 8 // start over now and then, too
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				var presets []*v1alpha1.PodPreset
				for p := range 6 {
					rv := fmt.Sprint((i + g) % 3)
					presets = append(presets, storedPreset(fmt.Sprintf("p%d", p), fmt.Sprintf("uid-%d", p), rv, metav1.LabelSelector{}))
				}
				pod := newPod(withContainers(newContainer("c")))
				selected, err := c.Select(pod, presets)
				if err != nil || len(selected) != len(presets) {
					t.Errorf("Select() = %d presets, %v", len(selected), err)
					return
				}
				if diff := cmp.Diff(Apply(pod, selected), c.Apply(pod, selected)); diff != "" {
					t.Errorf("Cache.Apply() differs from Apply() (-want +got):\n%s", diff)
					return
				}
			}
		})
	}
	wg.Wait()
}
