package policyplugin_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/internal/fuzz"
	"presetsim.dev/presetsim/internal/policyplugin"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/defaults"
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
	return out.Warnings, true
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

// TestWarningsOfGeneratedCases: the same on cases presetsim fuzz generates
// (small pools of keys: identical items and conflicts are frequent).
func TestWarningsOfGeneratedCases(t *testing.T) {
	n := 150 // about 50 with conflicts; each starts the plug-ins anew, 0.1 s
	if testing.Short() {
		n = 40
	}
	checked := 0
	for i := range n {
		c := fuzz.Generate(fuzz.CaseSeed(20261126, i))
		for _, p := range c.Presets {
			p.Namespace, p.ResourceVersion = "default", "1"
		}
		pod := defaults.Pod(c.Pod)
		pod.Namespace = "default"
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
