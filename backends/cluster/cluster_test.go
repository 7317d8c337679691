package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"presetsim.dev/presetsim/harness/backend"
)

// TestConfig: a kubeconfig when given one, the pod's service account when
// not, and an error that says which was missing.
func TestConfig(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(good, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://203.0.113.7:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, kubeconfig, serviceHost string
		wantHost, wantErr             string
	}{
		{name: "a kubeconfig", kubeconfig: good, wantHost: "https://203.0.113.7:6443"},
		{name: "a kubeconfig that is not there", kubeconfig: filepath.Join(dir, "nope"), wantErr: "unable to read the kubeconfig"},
		{name: "neither a kubeconfig nor a pod", wantErr: "needs --kubeconfig, or to run in a pod of the cluster"},
		// The variables of a pod, but no service account token mounted.
		{name: "a pod without its token", serviceHost: "10.0.0.1", wantErr: "needs --kubeconfig, or to run in a pod of the cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat("/var/run/secrets/kubernetes.io/serviceaccount/token"); err == nil && tt.serviceHost != "" {
				t.Skip("this test runs in a pod, which has its token")
			}
			t.Setenv("KUBERNETES_SERVICE_HOST", tt.serviceHost)
			t.Setenv("KUBERNETES_SERVICE_PORT", "443")
			cfg, _, err := New(Options{Kubeconfig: tt.kubeconfig}).config()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || cfg.Host != tt.wantHost {
				t.Fatalf("host %v (%v), want %s", cfg, err, tt.wantHost)
			}
		})
	}
}

// TestLedgerTake: a release takes what the run created in its namespaces,
// once; Stop takes the rest, and skips the released namespaces; the list
// keeps everything, for the wait.
func TestLedgerTake(t *testing.T) {
	var l ledger
	for _, o := range []struct{ ns, name string }{{"a", "p1"}, {"b", "p2"}, {"a", "p3"}, {"c", "p4"}} {
		u := &unstructured.Unstructured{}
		u.SetKind("Pod")
		u.SetNamespace(o.ns)
		u.SetName(o.name)
		u.SetUID(types.UID(o.name))
		l.add(backend.Pods, u)
	}
	names := func(objs []created) string {
		var out []string
		for _, o := range objs {
			out = append(out, o.name)
		}
		return strings.Join(out, ",")
	}
	steps := []struct {
		name       string
		namespaces []string
		want       string
	}{
		{"a scenario's namespaces", []string{"a"}, "p1,p3"},
		{"taken once", []string{"a"}, ""},
		{"two namespaces", []string{"b", "x"}, "p2"},
		{"the rest, at Stop", nil, "p4"},
		{"nothing left", nil, ""},
	}
	for _, s := range steps {
		if got := names(l.take(s.namespaces)); got != s.want {
			t.Errorf("%s: take(%v) = %q, want %q", s.name, s.namespaces, got, s.want)
		}
	}
	if got := names(l.list()); got != "p1,p2,p3,p4" {
		t.Errorf("list() = %q after the takes, want every object", got)
	}
	if got := l.unreleased([]string{"a", "b", "c", "x"}); strings.Join(got, ",") != "c" {
		t.Errorf("unreleased = %v, want [c]: a, b and x were released", got)
	}
}

// TestPropagation: owners go in the foreground, after their dependents;
// kinds that own nothing a run makes, of any group, in the background.
func TestPropagation(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want metav1.DeletionPropagation
	}{
		{"ReplicaSet", metav1.DeletePropagationForeground},
		{"Deployment", metav1.DeletePropagationForeground},
		{"StatefulSet", metav1.DeletePropagationForeground},
		{"Job", metav1.DeletePropagationForeground},
		{"Service", metav1.DeletePropagationForeground}, // its EndpointSlices
		{"Pod", metav1.DeletePropagationBackground},
		{"PodPreset", metav1.DeletePropagationBackground}, // settings.k8s.io or redhatcop.redhat.io
		{"ConfigMap", metav1.DeletePropagationBackground},
		{"Secret", metav1.DeletePropagationBackground},
		{"Event", metav1.DeletePropagationBackground},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			if got := propagation(created{kind: tc.kind}); got != tc.want {
				t.Errorf("propagation(%s) = %s, want %s", tc.kind, got, tc.want)
			}
		})
	}
}
