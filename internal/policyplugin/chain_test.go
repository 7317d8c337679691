package policyplugin

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"

	"presetsim.dev/presetsim/internal/admit"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/presets/policy"
)

func preset(name, rv, env string) *v1alpha1.PodPreset {
	return &v1alpha1.PodPreset{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team", ResourceVersion: rv},
		Spec: v1alpha1.PodPresetSpec{
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Env:      []corev1.EnvVar{{Name: env, Value: "1"}},
		},
	}
}

func pod() *corev1.Pod {
	return defaults.Pod(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
	})
}

// start starts the plug-ins over a cluster with the namespace team and
// the policies stored before.
func start(t *testing.T, policies ...runtime.Object) *Chain {
	t.Helper()
	cluster := fake.NewSimpleClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "team", Labels: map[string]string{corev1.LabelMetadataName: "team"}}})
	c, err := Start(context.Background(), Deps{
		Namespaces: cluster,
		Dynamic:    dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()),
		Mapper:     meta.NewDefaultRESTMapper(nil),
		Scheme:     scheme.Scheme,
		Default:    DefaultPod,
		Policies:   policies,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

// compiled are the objects of the namespace team's presets.
func compiled(t *testing.T, presets ...*v1alpha1.PodPreset) []runtime.Object {
	t.Helper()
	objs, err := policy.Compile("team", presets, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return objs.All()
}

// write stores the namespace's compiled policy as a controller would.
func write(t *testing.T, c *Chain, presets ...*v1alpha1.PodPreset) {
	t.Helper()
	objs, err := policy.Compile("team", presets, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api := c.Client().AdmissionregistrationV1()
	ctx := context.Background()
	if got, err := api.MutatingAdmissionPolicies().Get(ctx, objs.Policy.Name, metav1.GetOptions{}); err == nil {
		got.Spec, got.Annotations = objs.Policy.Spec, objs.Policy.Annotations
		_, err = api.MutatingAdmissionPolicies().Update(ctx, got, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := api.MutatingAdmissionPolicies().Create(ctx, objs.Policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.MutatingAdmissionPolicyBindings().Create(ctx, objs.Binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// admitUntil admits a fresh pod until ok says it is as expected: the
// plug-ins compile what is written asynchronously, as in an API server.
func admitUntil(t *testing.T, c *Chain, what string, ok func(*corev1.Pod, admit.Outcome) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	var out admit.Outcome
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		last = pod()
		var err error
		if out, err = admit.Invoke(ctx, c, nil, admit.PodCreate(last, false, "test")); err != nil {
			return false, err
		}
		return ok(last, out), nil
	})
	if err != nil {
		t.Fatalf("%s: %v; last pod %+v, outcome %+v", what, err, last.Spec.Containers, out)
	}
	return last
}

func envNames(p *corev1.Pod) []string {
	var names []string
	for _, e := range p.Spec.Containers[0].Env {
		names = append(names, e.Name)
	}
	return names
}

func TestChainAppliesTheCompiledPolicy(t *testing.T) {
	c := start(t)
	write(t, c, preset("a", "10", "A"))
	got := admitUntil(t, c, "the policy applies", func(p *corev1.Pod, o admit.Outcome) bool {
		return o.Denied == nil && len(p.Spec.Containers[0].Env) > 0
	})
	if names := envNames(got); len(names) != 1 || names[0] != "A" {
		t.Errorf("env = %v, want [A] (added once, although the policy ran twice)", names)
	}
	if v := got.Annotations[merge.AnnotationKey("a")]; v != "10" {
		t.Errorf("annotations = %v", got.Annotations)
	}
	// A change of the policy is compiled again: its resourceVersion moved.
	write(t, c, preset("a", "11", "A"), preset("b", "12", "B"))
	got = admitUntil(t, c, "the changed policy applies", func(p *corev1.Pod, o admit.Outcome) bool {
		return o.Denied == nil && len(p.Spec.Containers[0].Env) == 2
	})
	if names := envNames(got); names[0] != "A" || names[1] != "B" {
		t.Errorf("env = %v, want [A B]", names)
	}
}

func TestChainLeavesOtherNamespacesAlone(t *testing.T) {
	c := start(t)
	write(t, c, preset("a", "10", "A"))
	admitUntil(t, c, "the policy applies", func(p *corev1.Pod, _ admit.Outcome) bool { return len(p.Spec.Containers[0].Env) == 1 })
	other := pod()
	other.Namespace = "elsewhere"
	if _, err := admit.Invoke(context.Background(), c, nil, admit.PodCreate(other, false, "test")); err != nil {
		t.Fatal(err)
	}
	if len(other.Spec.Containers[0].Env) != 0 {
		t.Errorf("a pod of another namespace was changed: %v", other.Spec.Containers[0].Env)
	}
}

func TestStartNeedsItsDeps(t *testing.T) {
	if _, err := Start(context.Background(), Deps{}); err == nil {
		t.Error("Start with nothing: no error")
	}
}

func TestPoliciesStoredBeforeStartApplyToTheFirstPod(t *testing.T) {
	c := start(t, compiled(t, preset("a", "10", "A"))...)
	p := pod()
	if _, err := admit.Invoke(context.Background(), c, nil, admit.PodCreate(p, false, "test")); err != nil {
		t.Fatal(err)
	}
	if names := envNames(p); len(names) != 1 || names[0] != "A" {
		t.Errorf("env of the first pod = %v, want [A]", names)
	}
}

// TestChainWarnsOfConflicts: the warning policy returns one warning per
// conflicting preset, as the reference does (features/conflict.feature).
func TestChainWarnsOfConflicts(t *testing.T) {
	database := preset("database", "1", "DB_HOST")
	database.Spec.Env = []corev1.EnvVar{{Name: "DB_HOST", Value: "db.internal"}, {Name: "DB_PORT", Value: "5432"}}
	replica := preset("replica", "2", "DB_HOST")
	replica.Spec.Env = []corev1.EnvVar{{Name: "DB_HOST", Value: "replica.internal"}}
	c := start(t, compiled(t, database, replica)...)
	p := pod()
	own := []corev1.EnvVar{{Name: "DB_HOST", Value: "localhost"}, {Name: "DB_PORT", Value: "3306"}}
	p.Spec.Containers = []corev1.Container{{Name: "website", Image: "w", Env: own}, {Name: "proxy", Image: "p", Env: own}}
	p = defaults.Pod(p)
	out, err := admit.Invoke(context.Background(), c, nil, admit.PodCreate(p, false, "test"))
	if err != nil || out.Denied != nil {
		t.Fatal(err, out.Denied)
	}
	prefix := "Validation failed for ValidatingAdmissionPolicy 'podpresets-team-conflicts' with binding 'podpresets-team-conflicts': "
	want := []string{
		prefix + "Conflict on pod preset database: duplicate env DB_HOST in container website; duplicate env DB_PORT in container website; duplicate env DB_HOST in container proxy; duplicate env DB_PORT in container proxy",
		prefix + "Conflict on pod preset replica: duplicate env DB_HOST in container website; duplicate env DB_HOST in container proxy",
	}
	if !slices.Equal(out.Warnings, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", out.Warnings, want)
	}
}

// TestPolicyStoreKeepsNoRecord: the policies' store (a client-go fake)
// records every action with a copy of its object; writing a policy per
// case grew a long fuzz run by 180 KB a case until each action cleared
// them. A hundred writes leave no record behind.
func TestPolicyStoreKeepsNoRecord(t *testing.T) {
	c := start(t)
	for i := range 100 {
		write(t, c, preset("a", strconv.Itoa(10+i), "A"))
	}
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return len(c.client.policies.Actions()) == 0, nil
	})
	if err != nil {
		t.Errorf("the store still records %d actions after 100 writes", len(c.client.policies.Actions()))
	}
}
