package external

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/harness/profile"
)

// TestReadRegistration: the registration is found in a bundle of
// manifests; a mistake in it is named by file and line.
func TestReadRegistration(t *testing.T) {
	for _, tc := range []struct {
		name, file, wantErr string
	}{
		{"a bundle", "testdata/bundle.yaml", ""},
		{"an unknown field", "testdata/typo.yaml", "testdata/typo.yaml:9"},
		{"no file", "testdata/none.yaml", "no such file"},
		{"v1beta1, which API servers no longer serve", "testdata/v1beta1.yaml", "testdata/v1beta1.yaml:6: MutatingWebhookConfiguration of admissionregistration.k8s.io/v1beta1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := ReadRegistration(tc.file)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatal(err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			case tc.wantErr == "" && (reg.Name != "podpreset-webhook" || len(reg.Webhooks) != 1):
				t.Fatalf("read %s with %d webhooks", reg.Name, len(reg.Webhooks))
			}
		})
	}
}

// TestAsDeployed: only the clientConfig is rewritten (the registration's
// path kept) and the namespaces narrowed to the run's; what the
// registration does against R5.4 is found.
func TestAsDeployed(t *testing.T) {
	reg, err := ReadRegistration("testdata/bundle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := &metav1.LabelSelector{MatchLabels: map[string]string{"presetsim.dev/admission": "r1"}}
	got, err := asDeployed(reg, "https://127.0.0.1:9443/mutate", []byte("ca"), run)
	if err != nil {
		t.Fatal(err)
	}
	w := got.Webhooks[0]
	if *w.ClientConfig.URL != "https://127.0.0.1:9443/mutate-pods" || w.ClientConfig.Service != nil || string(w.ClientConfig.CABundle) != "ca" {
		t.Errorf("clientConfig %+v, want the URL's host with the registration's path", w.ClientConfig)
	}
	if sel := metav1.FormatLabelSelector(w.NamespaceSelector); sel != "podpresets=enabled,presetsim.dev/admission=r1" {
		t.Errorf("namespaceSelector %s, want both the registration's and the run's", sel)
	}
	if *w.FailurePolicy != admissionregistrationv1.Ignore || len(w.Rules[0].Operations) != 2 {
		t.Errorf("failurePolicy %s, operations %v: want them as shipped", *w.FailurePolicy, w.Rules[0].Operations)
	}
	if reg.Webhooks[0].ClientConfig.Service == nil {
		t.Error("the registration read was changed")
	}
	findings := RegistrationFindings(reg, nil)
	if len(findings) != 1 || !strings.Contains(findings[0], "podpresets=enabled only") {
		t.Errorf("findings %q, want one about the namespaceSelector", findings)
	}
	if d := DeclaredNarrowing(reg, nil); len(d) != 0 {
		t.Errorf("declared %q with no profile", d)
	}
	noPods := reg.DeepCopy()
	noPods.Webhooks[0].Rules[0].Resources = []string{"deployments"}
	if f := RegistrationFindings(noPods, nil); len(f) != 1 || !strings.Contains(f[0], "no webhook") {
		t.Errorf("findings %q, want that no webhook is sent CREATE of pods", f)
	}
}

// TestDeclaredNarrowing: a namespaceSelector that the profile's
// namespaceLabels satisfy is declared, stated once, and no finding; one
// they do not satisfy is still found.
func TestDeclaredNarrowing(t *testing.T) {
	reg, err := ReadRegistration("testdata/bundle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		labels   string
		findings int
		declared int
	}{
		{"labels the selector selects", "podpresets: enabled", 0, 1},
		{"labels it does not select", "podpresets: disabled", 1, 0},
		{"no labels", "", 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: presetsim.dev/v1alpha1\nkind: Profile\nmetadata:\n  name: narrowed\nspec: {}\n"
			if tc.labels != "" {
				doc = "apiVersion: presetsim.dev/v1alpha1\nkind: Profile\nmetadata:\n  name: narrowed\nspec:\n  namespaceLabels:\n    " + tc.labels + "\n"
			}
			prof, err := profile.Parse("narrowed.yaml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			found, declared := RegistrationFindings(reg, prof), DeclaredNarrowing(reg, prof)
			if len(found) != tc.findings || len(declared) != tc.declared {
				t.Errorf("findings %q, declared %q; want %d and %d", found, declared, tc.findings, tc.declared)
			}
			for _, d := range declared {
				if !strings.Contains(d, "podpresets=enabled") || !strings.Contains(d, "namespaceLabels") {
					t.Errorf("declared %q, want the selector and the profile's labels named", d)
				}
			}
		})
	}
}

// TestProfileRegistration: a profile's spec.registration is read relative
// to the profile's file, as the run registers it when no
// --webhook-configuration is given.
func TestProfileRegistration(t *testing.T) {
	dir := t.TempDir()
	bundle, err := os.ReadFile("testdata/bundle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "webhook.yaml"), bundle, 0o644); err != nil {
		t.Fatal(err)
	}
	prof, err := profile.Parse(filepath.Join(dir, "profile.yaml"), []byte("apiVersion: presetsim.dev/v1alpha1\nkind: Profile\nmetadata:\n  name: shipped\nspec:\n  registration: webhook.yaml\n"))
	if err != nil {
		t.Fatal(err)
	}
	path, data, err := prof.RegistrationFile()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := ParseRegistration(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if reg.Name != "podpreset-webhook" || path != filepath.Join(dir, "webhook.yaml") {
		t.Errorf("read %s from %s", reg.Name, path)
	}
}
