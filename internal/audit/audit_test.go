package audit_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"presetsim.dev/presetsim/backends/envtest"
	"presetsim.dev/presetsim/harness"
	"presetsim.dev/presetsim/internal/audit"
	"presetsim.dev/presetsim/internal/suitetest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// TestAuditFindsDrift makes drift on purpose on a real control plane with
// the reference webhook, then audits with an identity that may only get,
// list and watch:
//   - a preset created after a Deployment's pods: they miss it;
//   - the webhook down under failurePolicy Ignore while a Deployment's pods
//     are created: they miss the preset that existed all along;
//   - a preset deleted after its Deployment's pods got it: they carry a
//     preset that is gone;
//   - a Deployment whose pods are as the presets make them: no finding.
//
// The audit reports each case exactly, and makes no request but reads.
func TestAuditFindsDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane; skipped with -short")
	}
	bin, err := envtest.FindBinaries()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := harness.Start(ctx, harness.Options{Backend: envtest.New(envtest.Options{BinDir: bin}), Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ns := "audit-" + w.RunID
	if err := w.CreateNamespace(ctx, ns, map[string]string{harness.RunLabel: w.RunID, harness.AdmissionLabel: w.RunID}); err != nil {
		t.Fatal(err)
	}
	d := drifter{t: t, w: w, ns: ns}

	d.preset("fine-env", "fine")
	d.deployment("fine", 1)
	d.podsCarry("fine", "fine-env")

	d.deployment("before", 2)
	d.podsCarry("before")
	d.preset("late", "before")

	d.preset("down-env", "down")
	restore := d.webhookDown()
	d.deployment("down", 2)
	d.podsCarry("down")
	restore()

	d.preset("doomed", "gone")
	d.deployment("gone", 2)
	d.podsCarry("gone", "doomed")
	if err := suitetest.API(t, w).Dynamic.Resource(v1alpha1.GroupVersionResource()).Namespace(ns).Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	cfg, writes := readOnly(t, suitetest.API(t, w).Config, suitetest.API(t, w).Client)
	clients := audit.Clients{Typed: kubernetes.NewForConfigOrDie(cfg), Dynamic: dynamic.NewForConfigOrDie(cfg)}
	if _, err := clients.Typed.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("the auditor's identity could write a ConfigMap (err %v): the test would prove nothing", err)
	}
	before := writes.Load()
	report, err := audit.Run(ctx, clients, nil, ns)
	if err != nil {
		t.Fatal(err)
	}
	if n := writes.Load() - before; n != 0 {
		t.Errorf("the audit made %d requests that are not get, list or watch", n)
	}

	got := map[string][]string{} // workload → "pod-kind-preset" per finding
	fixes := map[string]string{}
	for _, wl := range report.Workloads {
		key := wl.Kind + "/" + wl.Name
		fixes[key] = wl.Fix
		for _, p := range wl.Pods {
			got[key] = append(got[key], fmt.Sprintf("%d findings", len(p.Findings)))
			for _, f := range p.Findings {
				got[key] = append(got[key], f.Kind+" "+f.Preset)
			}
		}
	}
	want := map[string][]string{
		"Deployment/fine":   {"0 findings"},
		"Deployment/before": {"1 findings", "missing late", "1 findings", "missing late"},
		"Deployment/down":   {"1 findings", "missing down-env", "1 findings", "missing down-env"},
		"Deployment/gone":   {"1 findings", "deleted doomed", "1 findings", "deleted doomed"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings by workload (-want +got):\n%s", diff)
	}
	if !report.Drifted() {
		t.Error("the report says there is no drift")
	}
	if fixes["Deployment/fine"] != "" || fixes["Deployment/before"] != "kubectl rollout restart deployment/before -n "+ns {
		t.Errorf("fixes: %v", fixes)
	}
}

// drifter builds the test's workloads and presets.
type drifter struct {
	t  *testing.T
	w  *harness.World
	ns string
}

// preset creates a preset selecting app=<app>, and waits until the webhook
// has it.
func (d drifter) preset(name, app string) {
	d.t.Helper()
	p := &v1alpha1.PodPreset{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: d.ns},
		Spec: v1alpha1.PodPresetSpec{
			Selector: metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Env:      []corev1.EnvVar{{Name: "FROM_" + app, Value: name}},
		},
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		d.t.Fatal(err)
	}
	created, err := suitetest.API(d.t, d.w).Dynamic.Resource(v1alpha1.GroupVersionResource()).Namespace(d.ns).Create(context.Background(), &unstructured.Unstructured{Object: u}, metav1.CreateOptions{})
	if err != nil {
		d.t.Fatal(err)
	}
	if err := d.w.WaitForPreset(context.Background(), d.ns, name, created.GetResourceVersion()); err != nil {
		d.t.Fatal(err)
	}
}

func (d drifter) deployment(app string, replicas int32) {
	d.t.Helper()
	labels := map[string]string{"app": app}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: d.ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}},
			},
		},
	}
	if _, err := suitetest.API(d.t, d.w).Client.AppsV1().Deployments(d.ns).Create(context.Background(), dep, metav1.CreateOptions{}); err != nil {
		d.t.Fatal(err)
	}
}

// podsCarry waits until the Deployment's replicas exist and checks that
// each carries exactly the presets named.
func (d drifter) podsCarry(app string, presets ...string) {
	d.t.Helper()
	var pods []corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		dep, err := suitetest.API(d.t, d.w).Client.AppsV1().Deployments(d.ns).Get(ctx, app, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		list, err := suitetest.API(d.t, d.w).Client.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
		if err != nil {
			return false, err
		}
		pods = list.Items
		return len(pods) == int(*dep.Spec.Replicas), nil
	})
	if err != nil {
		d.t.Fatalf("Deployment %s: %d pods: %v", app, len(pods), err)
	}
	for _, p := range pods {
		var got []string
		for k := range p.Annotations {
			got = append(got, k)
		}
		var want []string
		for _, name := range presets {
			want = append(want, "podpreset.admission.kubernetes.io/podpreset-"+name)
		}
		if len(got) != len(want) || (len(want) > 0 && p.Annotations[want[0]] == "") {
			d.t.Fatalf("pod %s carries %v, want %v", p.Name, got, want)
		}
	}
}

// webhookDown points the run's webhook at a port where nothing listens,
// with failurePolicy Ignore, as a webhook that is down and fails open; it
// returns what puts it back.
func (d drifter) webhookDown() (restore func()) {
	d.t.Helper()
	ctx := context.Background()
	api := suitetest.API(d.t, d.w).Client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	list, err := api.List(ctx, metav1.ListOptions{LabelSelector: harness.RunLabel + "=" + d.w.RunID})
	if err != nil || len(list.Items) == 0 {
		d.t.Fatalf("the run's webhook registration: %v (%d found)", err, len(list.Items))
	}
	original := list.Items[0].DeepCopy()
	down := original.DeepCopy()
	ignore, dead := admissionregistrationv1.Ignore, "https://127.0.0.1:1/down"
	for i := range down.Webhooks {
		down.Webhooks[i].FailurePolicy = &ignore
		down.Webhooks[i].ClientConfig.URL = &dead
		down.Webhooks[i].ClientConfig.Service = nil
	}
	if _, err := api.Update(ctx, down, metav1.UpdateOptions{}); err != nil {
		d.t.Fatal(err)
	}
	return func() {
		d.t.Helper()
		now, err := api.Get(ctx, original.Name, metav1.GetOptions{})
		if err != nil {
			d.t.Fatal(err)
		}
		now.Webhooks = original.Webhooks
		if _, err := api.Update(ctx, now, metav1.UpdateOptions{}); err != nil {
			d.t.Fatal(err)
		}
	}
}

// readOnly returns a client configuration that acts as a user bound to a
// ClusterRole of get, list and watch on everything (through impersonation
// by the admin), and a count of the requests it made that are not reads.
func readOnly(t *testing.T, admin *rest.Config, client kubernetes.Interface) (*rest.Config, *atomic.Int64) {
	t.Helper()
	ctx := context.Background()
	const user = "presetsim-auditor"
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}},
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}},
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The RBAC authorizer learns of the binding through an informer: wait
	// until the API server says the auditor may list pods, or the audit
	// would race it (seen in CI as "pods is forbidden").
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               user,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Resource: "pods"},
	}}
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return got.Status.Allowed, nil
	})
	if err != nil {
		t.Fatalf("the auditor's binding never took effect: %v", err)
	}
	cfg := rest.CopyConfig(admin)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	writes := &atomic.Int64{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.Method != http.MethodGet {
				writes.Add(1)
			}
			return rt.RoundTrip(r)
		})
	}
	return cfg, writes
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
