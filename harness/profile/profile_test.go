package profile

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestShippedProfilesLoad(t *testing.T) {
	for _, f := range []string{"../../profiles/reference.yaml", "../../profiles/kubernetes-1.19.yaml", "../../profiles/example/profile.yaml", "../../profiles/redhat-cop-podpreset-webhook.yaml", "../../profiles/kubeflow-poddefault.yaml", "../../profiles/wozniakjan-podpreset-crd.yaml"} {
		t.Run(f, func(t *testing.T) {
			p, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if p.Metadata.Name == "" || p.Spec.Implementation == "" {
				t.Errorf("profile %s has no name or implementation", f)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	const header = "apiVersion: presetsim.dev/v1alpha1\nkind: Profile\nmetadata:\n  name: x\n"
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"unknown field", header + "spec:\n  clams: [events]\n", []string{`bad.yaml:6: spec.clams: unknown key; did you mean "claims"? (known here: implementation, version, crd, registration, namespaceLabels, preset, annotations, referenceCRD, behaviour, claims, warning, probe)`}},
		{"a misspelt behaviour setting, and an unknown key elsewhere", header + "spec:\n  behaviour:\n    ordr: name\n  preset:\n    kindd: X\n",
			[]string{`bad.yaml:7: spec.behaviour.ordr: unknown key; did you mean "order"?`, `bad.yaml:9: spec.preset.kindd: unknown key; did you mean "kind"?`}},
		{"an unknown top-level key", "apiVersion: presetsim.dev/v1alpha1\nkind: Profile\nmetadata:\n  name: x\nspecs: {}\n", []string{`bad.yaml:5: specs: unknown key; did you mean "spec"?`}},
		{"wrong apiVersion", "apiVersion: v1\nkind: Profile\nmetadata:\n  name: x\n", []string{"bad.yaml:1: apiVersion: must be presetsim.dev/v1alpha1"}},
		{"no name", "apiVersion: presetsim.dev/v1alpha1\nkind: Profile\n", []string{"bad.yaml:1: metadata.name: is required"}},
		{"unknown capability", header + "spec:\n  claims: [events, telepathy]\n", []string{"bad.yaml:6: spec.claims[1]: unknown capability \"telepathy\""}},
		{"applied key without the name", header + "spec:\n  annotations:\n    applied: example.com/applied\n", []string{"bad.yaml:7: spec.annotations.applied: must hold {name}"}},
		{"kind without apiVersion", header + "spec:\n  preset:\n    kind: PodInjection\n", []string{"bad.yaml:6: spec.preset: apiVersion and kind go together"}},
		{"mapping a field that is not canonical", header + "spec:\n  preset:\n    fields:\n      spec.labels: spec.x\n", []string{"spec.preset.fields.spec.labels: is not a canonical field"}},
		{"missing CRD file", header + "spec:\n  crd: nope.yaml\n", []string{"bad.yaml:6: spec.crd:", "nope.yaml"}},
		{"a CRD of another kind", header + "spec:\n  crd: ../../profiles/crds/kubeflow.org_poddefaults.yaml\n",
			[]string{"bad.yaml:6: spec.crd:", `defines PodDefault in group "kubeflow.org", but spec.preset is settings.k8s.io/v1alpha1 PodPreset`}},
		{"a CRD without the preset's version", header + "spec:\n  crd: ../../profiles/crds/kubeflow.org_poddefaults.yaml\n  preset:\n    apiVersion: kubeflow.org/v1\n    kind: PodDefault\n",
			[]string{"bad.yaml:6: spec.crd:", `serves no version "v1" of PodDefault`}},
		{"not a CRD", header + "spec:\n  crd: ../../profiles/reference.yaml\n", []string{"bad.yaml:6: spec.crd:", "reference.yaml"}},
		{"a warning without the message", header + "spec:\n  warning: \"conflict\"\n", []string{"bad.yaml:6: spec.warning: must hold {message} once"}},
		{"a warning with an unknown placeholder", header + "spec:\n  warning: \"{policy}: {message}\"\n", []string{"bad.yaml:6: spec.warning: must hold {message} once and no placeholder but {namespace}"}},
		{"an unknown probe", header + "spec:\n  probe: magic\n", []string{"bad.yaml:6: spec.probe: must be empty or \"compiled\""}},
		{"a registration file that is not there", header + "spec:\n  registration: nope.yaml\n", []string{"bad.yaml:6: spec.registration: unable to read the profile's registration", "nope.yaml"}},
		{"a propagation window that is no duration", header + "spec:\n  behaviour:\n    propagation: soon\n", []string{"bad.yaml:7: spec.behaviour.propagation: must be a positive duration such as 5s or 500ms, got \"soon\""}},
		{"a namespace label that is no label", header + "spec:\n  namespaceLabels:\n    part of: kubeflow\n", []string{`bad.yaml:7: spec.namespaceLabels["part of"]: not a label key`}},
		{"a namespace label of the run's", header + "spec:\n  namespaceLabels:\n    presetsim.dev/run: x\n", []string{`bad.yaml:7: spec.namespaceLabels["presetsim.dev/run"]: presetsim.dev/ labels are the run's own`}},
		{"not YAML", "apiVersion: [\n", []string{"bad.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestWarning(t *testing.T) {
	p, err := Parse("p.yaml", []byte("apiVersion: presetsim.dev/v1alpha1\nkind: Profile\nmetadata:\n  name: x\nspec:\n  warning: \"policy '{namespace}-x': {message}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Warning("team", "Conflict on pod preset a: duplicate env A"), "policy 'team-x': Conflict on pod preset a: duplicate env A"; got != want {
		t.Errorf("Warning = %q, want %q", got, want)
	}
	if got := Canonical().Warning("team", "m"); got != "m" {
		t.Errorf("the canonical warning = %q, want the message alone", got)
	}
}

func TestTranslation(t *testing.T) {
	p, err := Load("../../profiles/example/profile.yaml")
	if err != nil {
		t.Fatal(err)
	}
	canonical := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "settings.k8s.io/v1alpha1", "kind": "PodPreset",
		"metadata": map[string]any{"name": "db"},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"role": "frontend"}},
			"env":      []any{map[string]any{"name": "A", "value": "1"}},
		},
	}}
	got, err := p.Preset(canonical)
	if err != nil {
		t.Fatal(err)
	}
	if got.GetAPIVersion() != "presets.example.com/v1alpha1" || got.GetKind() != "PodInjection" {
		t.Errorf("kind %s %s", got.GetAPIVersion(), got.GetKind())
	}
	if _, found, _ := unstructured.NestedMap(got.Object, "spec", "podSelector"); !found {
		t.Errorf("spec.selector not moved to spec.podSelector: %v", got.Object["spec"])
	}
	if _, found, _ := unstructured.NestedMap(got.Object, "spec", "selector"); found {
		t.Errorf("spec.selector left behind")
	}
	if _, found, _ := unstructured.NestedMap(canonical.Object, "spec", "selector"); !found {
		t.Errorf("the canonical object was modified")
	}
	ann := p.Annotations(map[string]string{
		"podpreset.admission.kubernetes.io/podpreset-db": "7",
		"podpreset.admission.kubernetes.io/exclude":      "true",
		"team": "a",
	})
	want := map[string]string{"presets.example.com/applied-db": "7", "presets.example.com/skip": "true", "team": "a"}
	if !reflect.DeepEqual(ann, want) {
		t.Errorf("annotations %v, want %v", ann, want)
	}
	if got := p.Message("spec.selector: Required value"); got != "spec.podSelector: Required value" {
		t.Errorf("message %q", got)
	}
	if c, ok := p.Unclaimed([]string{"@R4.3", "@rollout"}); !ok || c != "rollout" {
		t.Errorf("unclaimed %q %v, want rollout", c, ok)
	}
	if c, ok := p.Unclaimed([]string{"@R4.3", "@events", "@envFromConflicts"}); ok {
		t.Errorf("unclaimed %q: events are decided by each check, envFrom is a model option", c)
	}
	if _, ok := p.Unclaimed([]string{"@initContainers"}); ok {
		t.Errorf("initContainers is claimed")
	}
	if _, ok := Canonical().Unclaimed([]string{"@events", "@rollout"}); ok {
		t.Errorf("the canonical profile does not claim everything")
	}
	if p.AppliedPrefix() != "presets.example.com/applied-" || p.AppliedKey("db") != "presets.example.com/applied-db" {
		t.Errorf("applied prefix %q key %q", p.AppliedPrefix(), p.AppliedKey("db"))
	}
}

// TestShippedFromAnyDirectory: a shipped profile and the CRD it names are
// read from the binary, whatever the working directory holds.
func TestShippedFromAnyDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, name := range []string{"redhat-cop-podpreset-webhook.yaml", "kubeflow-poddefault.yaml", "policy.yaml"} {
		p, err := Shipped(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := p.CRD(); err != nil {
			t.Errorf("%s: its CRD: %v", name, err)
		}
	}
}
