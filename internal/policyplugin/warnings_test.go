package policyplugin_test

import (
	"context"
	"slices"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/internal/policyplugin"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/model"
	"presetsim.dev/presetsim/presets/policy"
)

// warnings admits pod with the compiled policies of presets (namespace
// default) through the API server's plug-ins and returns the warnings;
// ok is false when the presets do not compile.
func warnings(t *testing.T, presets []*v1alpha1.PodPreset, pod *corev1.Pod) (_ []string, ok bool) {
	t.Helper()
	objs, err := policy.Compile("default", presets, policy.Options{})
	if err != nil {
		return nil, false
	}
	return admitted(t, objs, pod), true
}

// ungated is warnings with the warning policy's match condition that
// skips a pod holding every item of the presets that select it taken
// away, as when it would be too long: its validations then ask the same
// of a variable.
func ungated(t *testing.T, presets []*v1alpha1.PodPreset, pod *corev1.Pod) []string {
	t.Helper()
	objs, err := policy.Compile("default", presets, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	conds := objs.Warning.Spec.MatchConditions
	objs.Warning.Spec.MatchConditions = slices.DeleteFunc(conds, func(c admissionregistrationv1.MatchCondition) bool { return c.Name == "a-preset-may-conflict" })
	if len(objs.Warning.Spec.MatchConditions) == len(conds) {
		t.Fatalf("the warning policy has no match condition a-preset-may-conflict: %v", conds)
	}
	return admitted(t, objs, pod)
}

// admitted admits pod through the API server's plug-ins with objs and
// returns the warnings.
func admitted(t *testing.T, objs policy.Objects, pod *corev1.Pod) []string {
	t.Helper()
	cluster := fake.NewSimpleClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "default", Labels: map[string]string{corev1.LabelMetadataName: "default"}}})
	c, err := policyplugin.Start(context.Background(), policyplugin.Deps{
		Namespaces: cluster,
		Dynamic:    dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()),
		Mapper:     meta.NewDefaultRESTMapper(nil),
		Scheme:     scheme.Scheme,
		Default:    policyplugin.DefaultPod,
		Policies:   objs.All(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	out, err := admit.Invoke(context.Background(), c, nil, admit.PodCreate(pod.DeepCopy(), false, "test"))
	if err != nil {
		t.Fatal(err)
	}
	return out.Warnings
}

// modelWarnings are the reference's warnings (of model.Admit's outcome),
// in the policy's words.
func modelWarnings(out model.Outcome) []string {
	name := policy.WarningName("default")
	prefix := "Validation failed for ValidatingAdmissionPolicy '" + name + "' with binding '" + name + "': "
	var want []string
	for _, w := range out.Warnings {
		want = append(want, prefix+w)
	}
	return want
}

func parsePresets(t *testing.T, docs ...string) []*v1alpha1.PodPreset {
	t.Helper()
	var out []*v1alpha1.PodPreset
	for _, doc := range docs {
		p := &v1alpha1.PodPreset{}
		if err := yaml.UnmarshalStrict([]byte(doc), p); err != nil {
			t.Fatal(err)
		}
		p.Namespace, p.ResourceVersion = "default", "1"
		out = append(out, p)
	}
	return out
}

func parsePod(t *testing.T, doc string) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{}
	if err := yaml.UnmarshalStrict([]byte(doc), p); err != nil {
		t.Fatal(err)
	}
	p.Namespace = "default"
	return defaults.Pod(p)
}

// TestWarningsFollowTheReference: the warning policy lists each
// preset's conflicts as the reference does, also where an earlier
// preset's item itself conflicted and so was not added (the cases
// presetsim fuzz found, and the like for one-key lists).
func TestWarningsFollowTheReference(t *testing.T) {
	const pod = `
metadata: {name: web, labels: {app: web}}
spec:
  containers:
  - name: side
    image: nginx
    volumeMounts: [{name: cache, mountPath: /var/log/app}]
    env: [{name: MODE, value: pod}]
  volumes: [{name: cache, emptyDir: {}}]`
	tests := []struct {
		name    string
		presets []string
	}{
		{"a mount that clashed on its name is not there to clash on its path", []string{
			`{metadata: {name: b}, spec: {volumeMounts: [{name: cache, mountPath: /etc/conf}]}}`,
			`{metadata: {name: e}, spec: {volumeMounts: [{name: other, mountPath: /etc/conf}]}}`,
		}},
		{"a mount identical to one that clashed clashes too", []string{
			`{metadata: {name: b}, spec: {volumeMounts: [{name: cache, mountPath: /etc/conf}]}}`,
			`{metadata: {name: e}, spec: {volumeMounts: [{name: cache, mountPath: /etc/conf}]}}`,
		}},
		{"the first preset's env is the one there", []string{
			`{metadata: {name: a}, spec: {env: [{name: LEVEL, value: x}]}}`,
			`{metadata: {name: b}, spec: {env: [{name: LEVEL, value: y}]}}`,
			`{metadata: {name: c}, spec: {env: [{name: LEVEL, value: y}]}}`,
		}},
		{"an env identical to one that clashed with the pod's", []string{
			`{metadata: {name: a}, spec: {env: [{name: MODE, value: x}]}}`,
			`{metadata: {name: b}, spec: {env: [{name: MODE, value: x}]}}`,
		}},
		{"a preset that selects nothing adds nothing", []string{
			`{metadata: {name: a}, spec: {selector: {matchLabels: {app: db}}, volumeMounts: [{name: data, mountPath: /data}]}}`,
			`{metadata: {name: b}, spec: {volumeMounts: [{name: logs, mountPath: /data}]}}`,
			`{metadata: {name: c}, spec: {volumeMounts: [{name: data, mountPath: /srv}]}}`,
			`{metadata: {name: d}, spec: {volumeMounts: [{name: logs, mountPath: /srv}]}}`,
		}},
		{"a chain of mounts, each clashing with the one before it", []string{
			`{metadata: {name: a}, spec: {volumeMounts: [{name: cache, mountPath: /one}]}}`,
			`{metadata: {name: b}, spec: {volumeMounts: [{name: m1, mountPath: /one}]}}`,
			`{metadata: {name: c}, spec: {volumeMounts: [{name: m1, mountPath: /two}]}}`,
			`{metadata: {name: d}, spec: {volumeMounts: [{name: m2, mountPath: /two}]}}`,
		}},
		{"a preset's own items, one after the other", []string{
			`{metadata: {name: a}, spec: {volumes: [{name: cache, emptyDir: {medium: Memory}}, {name: v, emptyDir: {}}, {name: v, hostPath: {path: /v}}]}}`,
			`{metadata: {name: b}, spec: {volumes: [{name: v, hostPath: {path: /v}}]}}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			presets, p := parsePresets(t, tt.presets...), parsePod(t, pod)
			want := modelWarnings(model.Admit(model.Admission{Presets: presets, Pod: p}, model.Options{})[0])
			if len(want) == 0 {
				t.Fatal("the case has no conflict: it tests nothing")
			}
			got, ok := warnings(t, presets, p)
			if !ok {
				t.Fatal("the presets do not compile")
			}
			if !slices.Equal(got, want) {
				t.Errorf("warnings:\n%q\nthe reference's:\n%q", got, want)
			}
		})
	}
}

// TestWarningsOfCopiedPods: a pod may carry the presets' annotations at
// their versions without being what the presets made of it — one copied
// from a pod they were applied to (kubectl get -o yaml, edit, create) —
// and its items may then conflict: the warning policy warns as the
// reference does, whatever the annotations say.
func TestWarningsOfCopiedPods(t *testing.T) {
	presets := parsePresets(t,
		`{metadata: {name: a}, spec: {env: [{name: LEVEL, value: x}], volumes: [{name: data, emptyDir: {}}]}}`,
		`{metadata: {name: b}, spec: {volumeMounts: [{name: data, mountPath: /data}]}}`)
	applied := model.Admit(model.Admission{Presets: presets, Pod: parsePod(t, `
metadata: {name: web}
spec: {containers: [{name: web, image: nginx}]}`)}, model.Options{})[0].Pod
	if len(applied.Annotations) != 2 {
		t.Fatalf("the presets were not applied: annotations %v", applied.Annotations)
	}
	tests := []struct {
		name string
		edit func(*corev1.Pod)
	}{
		{"as copied: nothing to warn of", func(*corev1.Pod) {}},
		{"an injected env var edited", func(p *corev1.Pod) { p.Spec.Containers[0].Env[0].Value = "y" }},
		{"an injected volume edited", func(p *corev1.Pod) {
			p.Spec.Volumes[0].VolumeSource = corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/srv"}}
		}},
		{"an injected mount moved", func(p *corev1.Pod) { p.Spec.Containers[0].VolumeMounts[0].MountPath = "/other" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := applied.DeepCopy()
			tt.edit(p)
			p = defaults.Pod(p)
			want := modelWarnings(model.Admit(model.Admission{Presets: presets, Pod: p}, model.Options{})[0])
			got, ok := warnings(t, presets, p)
			if !ok {
				t.Fatal("the presets do not compile")
			}
			if !slices.Equal(got, want) {
				t.Errorf("warnings:\n%q\nthe reference's:\n%q", got, want)
			}
			if got := ungated(t, presets, p); !slices.Equal(got, want) {
				t.Errorf("without the match condition, warnings:\n%q\nthe reference's:\n%q", got, want)
			}
		})
	}
}

// generated is the i-th case of a run's seed, its presets in namespace
// default at version 1, and its pod as submitted, defaulted, with the
// annotations of the presets it is a copy with.
func generated(seed uint64, i int) (fuzz.Case, *corev1.Pod) {
	c := fuzz.Generate(fuzz.CaseSeed(seed, i))
	for _, p := range c.Presets {
		p.Namespace, p.ResourceVersion = "default", "1"
	}
	pod := defaults.Pod(c.Pod)
	pod.Namespace = "default"
	c.AnnotateCopied(pod, fuzz.Versions(c.Presets))
	return c, pod
}

// TestWarningsOfGeneratedCases: the same on cases presetsim fuzz generates
// (small pools of keys: identical items and conflicts are frequent).
func TestWarningsOfGeneratedCases(t *testing.T) {
	n := 150 // about 50 with conflicts; each starts the plug-ins anew, 0.1 s
	if testing.Short() {
		n = 40
	}
	checked := 0
	for i := range n {
		c, pod := generated(20261126, i)
		out := model.Admit(model.Admission{Presets: c.Presets, Pod: pod}, model.Options{})[0]
		if len(out.Warnings) == 0 || len(out.InvalidSelectors) > 0 {
			continue
		}
		got, ok := warnings(t, c.Presets, pod)
		if !ok {
			continue
		}
		checked++
		if want := modelWarnings(out); !slices.Equal(got, want) {
			t.Errorf("case seed %d: warnings:\n%q\nthe reference's:\n%q", c.Seed, got, want)
		}
	}
	if checked < n/10 {
		t.Errorf("only %d of %d cases had a conflict to warn of", checked, n)
	}
	t.Logf("%d of %d generated cases warned of conflicts", checked, n)
}

// TestWarningsOfGeneratedCopies: on generated cases, the pod the reference
// makes (the presets' annotations at their versions) with one injected
// item changed, as a copied and edited pod would be: the warning policy
// warns as the reference does.
func TestWarningsOfGeneratedCopies(t *testing.T) {
	n := 80 // about a fifth inject a volume or an env var; each check starts the plug-ins anew, 0.1 s
	if testing.Short() {
		n = 20
	}
	checked, warned := 0, 0
	for i := range n {
		c, pod := generated(20261127, i)
		out := model.Admit(model.Admission{Presets: c.Presets, Pod: pod}, model.Options{})[0]
		if len(out.Applied) == 0 || len(out.InvalidSelectors) > 0 || !editInjected(out.Pod, len(pod.Spec.Volumes), len(pod.Spec.Containers[0].Env)) {
			continue
		}
		copied := defaults.Pod(out.Pod)
		want := modelWarnings(model.Admit(model.Admission{Presets: c.Presets, Pod: copied}, model.Options{})[0])
		got, ok := warnings(t, c.Presets, copied)
		if !ok {
			continue
		}
		checked++
		if len(want) > 0 {
			warned++
		}
		if !slices.Equal(got, want) {
			t.Errorf("case seed %d: warnings:\n%q\nthe reference's:\n%q", c.Seed, got, want)
		}
		if got := ungated(t, c.Presets, copied); !slices.Equal(got, want) {
			t.Errorf("case seed %d: without the match condition, warnings:\n%q\nthe reference's:\n%q", c.Seed, got, want)
		}
	}
	t.Logf("%d generated copies checked, %d of them warned of", checked, warned)
	if warned < checked/2 || checked < n/10 {
		t.Errorf("%d of %d cases checked, %d warned of: too few to check the warnings", checked, n, warned)
	}
}

// editInjected changes the first item the presets injected into the pod
// (which held volumes and env vars in its first container before): a
// volume's source, or else an env var's value. False when they injected
// neither.
func editInjected(p *corev1.Pod, volumes, env int) bool {
	if len(p.Spec.Volumes) > volumes {
		p.Spec.Volumes[volumes].VolumeSource = corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/edited"}}
		return true
	}
	if len(p.Spec.Containers) > 0 && len(p.Spec.Containers[0].Env) > env {
		e := &p.Spec.Containers[0].Env[env]
		e.Value, e.ValueFrom = e.Value+"-edited", nil
		return true
	}
	return false
}
