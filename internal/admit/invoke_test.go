package admit

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/warning"
)

// fakePlugin does what its fields say and records what it was given.
type fakePlugin struct {
	*admission.Handler
	warn  string
	deny  error
	panic bool
	got   admission.Attributes
}

func (f *fakePlugin) Admit(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	f.got = a
	if f.panic {
		panic("boom")
	}
	if f.warn != "" {
		warning.AddWarning(ctx, "", f.warn)
	}
	if pod, ok := a.GetObject().(*corev1.Pod); ok {
		pod.Labels = map[string]string{"admitted": "yes"}
	}
	return f.deny
}

func TestInvoke(t *testing.T) {
	denied := errors.New("no")
	tests := []struct {
		name    string
		plugin  *fakePlugin
		dryRun  bool
		want    Outcome
		wantErr bool
		// mutated: the plug-in was called and changed the pod.
		mutated bool
	}{
		{name: "admitted, with a warning", plugin: &fakePlugin{Handler: admission.NewHandler(admission.Create), warn: "careful"},
			want: Outcome{Warnings: []string{"careful"}}, mutated: true},
		{name: "dry run", plugin: &fakePlugin{Handler: admission.NewHandler(admission.Create)}, dryRun: true, mutated: true},
		{name: "denied", plugin: &fakePlugin{Handler: admission.NewHandler(admission.Create), deny: denied},
			want: Outcome{Denied: denied}, mutated: true},
		{name: "an operation the plug-in does not handle", plugin: &fakePlugin{Handler: admission.NewHandler(admission.Update)}},
		{name: "a panic is an error, not a refusal", plugin: &fakePlugin{Handler: admission.NewHandler(admission.Create), panic: true}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "website", Namespace: "shop"}}
			got, err := Invoke(context.Background(), tc.plugin, nil, PodCreate(pod, tc.dryRun, "tester"))
			if (err != nil) != tc.wantErr {
				t.Fatalf("Invoke() error = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) })); diff != "" {
				t.Errorf("Invoke() outcome (-want +got):\n%s", diff)
			}
			if mutated := pod.Labels["admitted"] == "yes"; mutated != tc.mutated {
				t.Errorf("pod mutated = %v, want %v", mutated, tc.mutated)
			}
			if a := tc.plugin.got; a != nil {
				if a.GetNamespace() != "shop" || a.GetName() != "website" || a.GetOperation() != admission.Create ||
					a.IsDryRun() != tc.dryRun || a.GetUserInfo().GetName() != "tester" || a.GetResource().Resource != "pods" {
					t.Errorf("attributes: namespace %q name %q operation %s dry run %v user %q resource %v",
						a.GetNamespace(), a.GetName(), a.GetOperation(), a.IsDryRun(), a.GetUserInfo().GetName(), a.GetResource())
				}
				opts, _ := a.GetOperationOptions().(*metav1.CreateOptions)
				if opts == nil || (len(opts.DryRun) > 0) != tc.dryRun {
					t.Errorf("operation options %+v for dry run %v", a.GetOperationOptions(), tc.dryRun)
				}
			}
		})
	}
}
