package merge

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// referenceApply is the merge of Apply written as plainly as possible: a map
// of every key to every position, equality by reflection, a DeepCopy per
// item. Apply's index (hashes, a linear scan for short lists, chains for
// long ones), its hand-written equality and its arena must give exactly the
// same result; the tests below compare the two.
func referenceApply(pod *corev1.Pod, presets []*v1alpha1.PodPreset) Result {
	if pod == nil {
		return Result{}
	}
	out := pod.DeepCopy()
	var (
		applied   []string
		conflicts []Conflict
		seen      = map[Conflict]bool{}
	)
	report := func(preset, container, field string, keys []string) {
		for _, k := range keys {
			c := Conflict{Preset: preset, Container: container, Field: field, Key: k}
			if !seen[c] {
				seen[c] = true
				conflicts = append(conflicts, c)
			}
		}
	}
	var containers []*corev1.Container
	for i := range out.Spec.InitContainers {
		containers = append(containers, &out.Spec.InitContainers[i])
	}
	for i := range out.Spec.Containers {
		containers = append(containers, &out.Spec.Containers[i])
	}
	var nonNil []*v1alpha1.PodPreset
	for _, p := range presets {
		if p == nil {
			continue
		}
		nonNil = append(nonNil, p)
		p = Defaulted(p)
		for i := range p.Spec.Volumes {
			report(p.Name, "", fieldVolumes, referenceAdd(&out.Spec.Volumes, fieldVolumes, p.Spec.Volumes[i], volumeKeys))
		}
		for _, c := range containers {
			for i := range p.Spec.Env {
				report(p.Name, c.Name, fieldEnv, referenceAdd(&c.Env, fieldEnv, p.Spec.Env[i], envKeys))
			}
			for i := range p.Spec.EnvFrom {
				report(p.Name, c.Name, fieldEnvFrom, referenceAdd(&c.EnvFrom, fieldEnvFrom, p.Spec.EnvFrom[i], envFromKeys))
			}
			for i := range p.Spec.VolumeMounts {
				report(p.Name, c.Name, fieldVolumeMounts, referenceAdd(&c.VolumeMounts, fieldVolumeMounts, p.Spec.VolumeMounts[i], volumeMountKeys))
			}
		}
		applied = append(applied, p.Name)
	}
	if len(conflicts) > 0 {
		return Result{Pod: pod.DeepCopy(), Conflicts: conflicts}
	}
	for _, p := range nonNil {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[AnnotationKey(p.Name)] = p.ResourceVersion
	}
	return Result{Pod: out, Applied: applied}
}

// referenceAdd appends a deep copy of item to *list unless an item with one
// of its keys is identical to it; it returns the labels of the keys shared
// with different items, and then adds nothing.
func referenceAdd[T any, P item[T]](list *[]T, field string, item T, keys func(P) itemKeys) []string {
	k := keys(P(&item))
	matches := func(id keyID) (found bool) {
		for i := range *list {
			ik := keys(P(&(*list)[i]))
			for _, other := range ik.ids[:ik.n] {
				if other == id {
					found = true
				}
			}
		}
		return found
	}
	for _, id := range k.ids[:k.n] {
		for i := range *list {
			ik := keys(P(&(*list)[i]))
			for _, other := range ik.ids[:ik.n] {
				if other == id && equality.Semantic.DeepEqual((*list)[i], item) {
					return nil
				}
			}
		}
	}
	var conflicts []string
	for _, id := range k.ids[:k.n] {
		if matches(id) {
			conflicts = append(conflicts, keyLabel(field, id))
		}
	}
	if len(conflicts) > 0 {
		return conflicts
	}
	var copied T
	P(&item).DeepCopyInto(&copied)
	*list = append(*list, copied)
	return nil
}

// bigPreset returns a preset with n items of each kind, named from first on,
// so that lists grow well beyond linearMax.
func bigPreset(name string, first, n int) *v1alpha1.PodPreset {
	p := newPreset(name, "7", v1alpha1.PodPresetSpec{})
	p.UID = types.UID("uid-" + name)
	for i := first; i < first+n; i++ {
		p.Spec.Env = append(p.Spec.Env, env(fmt.Sprintf("VAR_%d", i), "x"))
		p.Spec.EnvFrom = append(p.Spec.EnvFrom, configMapEnv("", fmt.Sprintf("cm-%d", i)), secretEnv(fmt.Sprintf("P%d_", i), "s"))
		v := configMapVolume(fmt.Sprintf("vol-%d", i), fmt.Sprintf("cm-%d", i))
		p.Spec.Volumes = append(p.Spec.Volumes, v)
		p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, mount(v.Name, fmt.Sprintf("/etc/%d", i)))
	}
	return p
}

func TestApplyMatchesReference(t *testing.T) {
	// A pod whose own lists are already longer than linearMax, with
	// duplicate keys of its own.
	crowded := func() *corev1.Pod {
		var envs []corev1.EnvVar
		var mounts []corev1.VolumeMount
		var vols []corev1.Volume
		for i := range 40 {
			envs = append(envs, env(fmt.Sprintf("VAR_%d", i), "x"))
			vols = append(vols, configMapVolume(fmt.Sprintf("vol-%d", i), fmt.Sprintf("cm-%d", i)))
			mounts = append(mounts, mount(fmt.Sprintf("vol-%d", i), fmt.Sprintf("/etc/%d", i)))
		}
		envs = append(envs, env("VAR_3", "other"), env("VAR_3", "x"))
		return newPod(withVolumes(vols...), withContainers(
			newContainer("a", withEnv(envs...), withMounts(mounts...)),
			newContainer("b"),
		))
	}
	tests := []struct {
		name    string
		pod     *corev1.Pod
		presets []*v1alpha1.PodPreset
	}{
		{
			name:    "long lists, all new",
			pod:     newPod(withInitContainers(newContainer("init")), withContainers(newContainer("a"), newContainer("b"))),
			presets: []*v1alpha1.PodPreset{bigPreset("one", 0, 20), bigPreset("two", 20, 20)},
		},
		{
			name:    "long lists, the second preset repeats the first",
			pod:     newPod(withContainers(newContainer("a"))),
			presets: []*v1alpha1.PodPreset{bigPreset("one", 0, 30), bigPreset("two", 0, 30)},
		},
		{
			name:    "long lists, overlapping presets",
			pod:     newPod(withContainers(newContainer("a"))),
			presets: []*v1alpha1.PodPreset{bigPreset("one", 0, 30), bigPreset("two", 25, 30)},
		},
		{
			name:    "a crowded pod receives what it already has",
			pod:     crowded(),
			presets: []*v1alpha1.PodPreset{bigPreset("one", 0, 40)},
		},
		{
			name: "a crowded pod conflicts after the index became a map",
			pod:  crowded(),
			presets: []*v1alpha1.PodPreset{bigPreset("one", 30, 20), newPreset("two", "1", v1alpha1.PodPresetSpec{
				Env:          []corev1.EnvVar{env("VAR_45", "changed"), env("VAR_3", "x")},
				Volumes:      []corev1.Volume{emptyDir("vol-44")},
				VolumeMounts: []corev1.VolumeMount{mount("vol-44", "/etc/1"), mount("vol-39", "/etc/new")},
			})},
		},
		{
			name:    "a crowded pod, duplicate of its own duplicated key",
			pod:     crowded(),
			presets: []*v1alpha1.PodPreset{newPreset("one", "1", v1alpha1.PodPresetSpec{Env: []corev1.EnvVar{env("VAR_3", "other")}})},
		},
		{
			// Lists that start empty follow the first of their kind
			// (see follow): they must report its conflicts as their own.
			name: "presets conflict with each other in every container that starts empty",
			pod: newPod(withInitContainers(newContainer("init")), withContainers(
				newContainer("a"), newContainer("b", withEnv(env("OWN", "1"))), newContainer("c"))),
			presets: []*v1alpha1.PodPreset{
				newPreset("one", "1", v1alpha1.PodPresetSpec{
					Env: []corev1.EnvVar{env("A", "1")}, EnvFrom: []corev1.EnvFromSource{configMapEnv("P_", "cm")},
					Volumes: []corev1.Volume{emptyDir("v")}, VolumeMounts: []corev1.VolumeMount{mount("v", "/v")},
				}),
				newPreset("two", "1", v1alpha1.PodPresetSpec{
					Env: []corev1.EnvVar{env("A", "2"), env("A", "1")}, EnvFrom: []corev1.EnvFromSource{configMapEnv("P_", "cm")},
					Volumes: []corev1.Volume{emptyDir("w")}, VolumeMounts: []corev1.VolumeMount{mount("w", "/v")},
				}),
			},
		},
		{
			name:    "nil presets and a nil pod list",
			pod:     newPod(withContainers(newContainer("a", withEnv()))),
			presets: []*v1alpha1.PodPreset{nil, bigPreset("one", 0, 1), nil},
		},
		{
			name:    "presets without items",
			pod:     newPod(withContainers(newContainer("a"))),
			presets: []*v1alpha1.PodPreset{newPreset("empty", "3", v1alpha1.PodPresetSpec{})},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := referenceApply(tc.pod, tc.presets)
			if diff := cmp.Diff(want, Apply(tc.pod, tc.presets)); diff != "" {
				t.Errorf("Apply() differs from the reference (-want +got):\n%s", diff)
			}
			cache := NewCache()
			for range 2 { // fills the cache, then uses it
				if diff := cmp.Diff(want, cache.Apply(tc.pod, tc.presets)); diff != "" {
					t.Errorf("Cache.Apply() differs from the reference (-want +got):\n%s", diff)
				}
			}
			if len(want.Conflicts) == 0 && want.Pod != nil {
				again := Apply(want.Pod, tc.presets)
				if diff := cmp.Diff(want.Pod, again.Pod); diff != "" || len(again.Conflicts) > 0 {
					t.Errorf("applying again changed the pod (conflicts %v) (-once +twice):\n%s", again.Conflicts, diff)
				}
			}
		})
	}
}

// FuzzApplyMatchesReference compares Apply with referenceApply on generated
// pods and presets, including lists long enough for the index to switch
// from scanning to a map.
func FuzzApplyMatchesReference(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add([]byte{1, 2, 0, 1, 1, 2, 2, 1, 0, 1, 2, 1, 0, 0, 2, 1, 1, 2}, uint8(40))
	f.Add([]byte{0, 2, 1, 1, 0, 2, 0, 1, 1, 0, 2, 2, 2, 1, 0, 1, 0, 2, 1, 1, 2, 0}, uint8(99))
	f.Fuzz(func(t *testing.T, data []byte, big uint8) {
		in := &fuzzInput{data: data}
		pod := in.pod()
		presets := in.presets()
		// Grow the first preset by up to 99 items of each kind, from a wider
		// alphabet, some of which collide with the small ones.
		if len(presets) > 0 && big > 0 {
			p := presets[0]
			for i := range int(big) % 100 {
				p.Spec.Env = append(p.Spec.Env, env(fmt.Sprintf("E%d", i%50), fmt.Sprintf("v%d", i%3)))
				v := emptyDir(fmt.Sprintf("vol%d", i%40))
				p.Spec.Volumes = append(p.Spec.Volumes, v)
				p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, mount(v.Name, fmt.Sprintf("/m%d", i%45)))
				p.Spec.EnvFrom = append(p.Spec.EnvFrom, configMapEnv(fmt.Sprintf("P%d_", i%2), fmt.Sprintf("cm%d", i%35)))
			}
		}
		want := referenceApply(pod, presets)
		if diff := cmp.Diff(want, Apply(pod, presets)); diff != "" {
			t.Fatalf("Apply() differs from the reference (-want +got):\n%s", diff)
		}
	})
}

func TestKeyIndex(t *testing.T) {
	// chain returns the items with hash h, latest first, as the index
	// finds them.
	chain := func(x *keyIndex, h uint64) []int32 {
		var items []int32
		for e := x.latest(h); e >= 0; e = x.previous(e) {
			items = append(items, x.entries[e].item)
		}
		return items
	}
	tests := []struct {
		name string
		// hashes[i] is the hash of item i's one key.
		hashes []uint64
		want   map[uint64][]int32
	}{
		{name: "empty", want: map[uint64][]int32{1: nil}},
		{name: "short, unique", hashes: []uint64{1, 2, 3}, want: map[uint64][]int32{1: {0}, 2: {1}, 3: {2}, 4: nil}},
		{name: "short, shared", hashes: []uint64{1, 2, 1, 1}, want: map[uint64][]int32{1: {3, 2, 0}, 2: {1}}},
		{
			name:   "long, shared across the switch to a map",
			hashes: append(append([]uint64{9}, make([]uint64, linearMax)...), 9, 5, 9),
			want:   map[uint64][]int32{9: {linearMax + 3, linearMax + 1, 0}, 5: {linearMax + 2}, 7: nil},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var x keyIndex
			for i, h := range tc.hashes {
				if h == 0 {
					h = uint64(100 + i) // filler, unique
				}
				x.add(h, i, 0)
			}
			if long := len(tc.hashes) > linearMax; long != (x.latestByHash != nil) {
				t.Errorf("map built = %v with %d entries (linearMax %d)", x.latestByHash != nil, len(tc.hashes), linearMax)
			}
			for h, want := range tc.want {
				if diff := cmp.Diff(want, chain(&x, h)); diff != "" {
					t.Errorf("items with hash %d (-want +got):\n%s", h, diff)
				}
			}
		})
	}
}

func TestEqualItemsAgreeWithSemanticDeepEqual(t *testing.T) {
	tr, fa := true, false
	prop, prop2 := corev1.MountPropagationBidirectional, corev1.MountPropagationNone
	rro, rro2 := corev1.RecursiveReadOnlyEnabled, corev1.RecursiveReadOnlyDisabled
	envs := []corev1.EnvVar{
		env("A", "1"), env("A", "2"), env("B", "1"), {Name: "A"},
		{Name: "A", Value: "1", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "A", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "A", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.uid"}}},
	}
	envFroms := []corev1.EnvFromSource{
		configMapEnv("", "a"), configMapEnv("P_", "a"), configMapEnv("", "b"), secretEnv("", "a"), secretEnv("P_", "a"),
		{}, {Prefix: "P_"},
		{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "a"}, Optional: &tr}},
		{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "a"}, Optional: &fa}},
		{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "a"}, Optional: &tr}},
		{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "a"}},
			SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "a"}}},
	}
	mounts := []corev1.VolumeMount{
		mount("a", "/a"), mount("a", "/b"), mount("b", "/a"),
		{Name: "a", MountPath: "/a", ReadOnly: true}, {Name: "a", MountPath: "/a", SubPath: "x"}, {Name: "a", MountPath: "/a", SubPathExpr: "x"},
		{Name: "a", MountPath: "/a", MountPropagation: &prop}, {Name: "a", MountPath: "/a", MountPropagation: &prop2},
		{Name: "a", MountPath: "/a", ReadOnly: true, RecursiveReadOnly: &rro}, {Name: "a", MountPath: "/a", ReadOnly: true, RecursiveReadOnly: &rro2},
		{Name: "a", MountPath: "/a", BindMountOptions: []string{}}, {Name: "a", MountPath: "/a", BindMountOptions: []string{"ro"}},
		{Name: "a", MountPath: "/a", BindMountOptions: []string{"ro", "x"}}, {Name: "a", MountPath: "/a", BindMountOptions: []string{"x", "ro"}},
	}
	check := func(t *testing.T, what string, n int, equal func(i, j int) bool, semantic func(i, j int) bool) {
		for i := range n {
			for j := range n {
				if got, want := equal(i, j), semantic(i, j); got != want {
					t.Errorf("%s %d and %d: equal = %v, Semantic.DeepEqual = %v", what, i, j, got, want)
				}
			}
		}
	}
	// Each item, and a deep copy of each (equal content, other pointers).
	envs = append(envs, deepCopies(envs)...)
	envFroms = append(envFroms, deepCopies(envFroms)...)
	mounts = append(mounts, deepCopies(mounts)...)
	check(t, "env", len(envs), func(i, j int) bool { return equalEnv(&envs[i], &envs[j]) },
		func(i, j int) bool { return equality.Semantic.DeepEqual(envs[i], envs[j]) })
	check(t, "envFrom", len(envFroms), func(i, j int) bool { return equalEnvFrom(&envFroms[i], &envFroms[j]) },
		func(i, j int) bool { return equality.Semantic.DeepEqual(envFroms[i], envFroms[j]) })
	check(t, "volumeMount", len(mounts), func(i, j int) bool { return equalVolumeMounts(&mounts[i], &mounts[j]) },
		func(i, j int) bool { return equality.Semantic.DeepEqual(mounts[i], mounts[j]) })
}

func deepCopies[T any, P item[T]](items []T) []T {
	out := make([]T, len(items))
	for i := range items {
		P(&items[i]).DeepCopyInto(&out[i])
	}
	return out
}

// TestEqualItemsKnowEveryField fails when Kubernetes adds a field to a type
// that equalEnvFrom or equalVolumeMounts compare field by field: they must
// then compare it too.
func TestEqualItemsKnowEveryField(t *testing.T) {
	tests := []struct {
		name   string
		fields []string
		want   []string
	}{
		{name: "VolumeMount", fields: fieldNames(corev1.VolumeMount{}),
			want: []string{"Name", "ReadOnly", "RecursiveReadOnly", "MountPath", "SubPath", "MountPropagation", "SubPathExpr", "BindMountOptions"}},
		{name: "EnvFromSource", fields: fieldNames(corev1.EnvFromSource{}), want: []string{"Prefix", "ConfigMapRef", "SecretRef"}},
		{name: "ConfigMapEnvSource", fields: fieldNames(corev1.ConfigMapEnvSource{}), want: []string{"LocalObjectReference", "Optional"}},
		{name: "SecretEnvSource", fields: fieldNames(corev1.SecretEnvSource{}), want: []string{"LocalObjectReference", "Optional"}},
		{name: "LocalObjectReference", fields: fieldNames(corev1.LocalObjectReference{}), want: []string{"Name"}},
		{name: "EnvVar", fields: fieldNames(corev1.EnvVar{}), want: []string{"Name", "Value", "ValueFrom"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.fields); diff != "" {
				t.Errorf("fields of %s changed; update the equal functions (-known +now):\n%s", tc.name, diff)
			}
		})
	}
}

// fieldNames lists the fields of a struct, in order.
func fieldNames(v any) []string {
	t := reflect.TypeOf(v)
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = t.Field(i).Name
	}
	return names
}
