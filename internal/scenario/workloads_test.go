package scenario

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// TestUpdatedAsAsked: a workload stored after the harness's merge patch is
// the workload before it with the patch applied, or an *ObjectChanged
// that names the update and each change: in the spec (its template), or
// an annotation under the implementation's prefix; a spec changed twice
// meanwhile (a controller's update too) is not judged.
func TestUpdatedAsAsked(t *testing.T) {
	const before = `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 1}, spec: {replicas: 1, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}`
	const rollout = `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"now"}}}}}`
	tests := []struct {
		name, update, patch, after string
		want                       string // in the error; none when empty
	}{
		{name: "rolled out as asked", update: "rollout", patch: rollout,
			after: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 1, template: {metadata: {labels: {app: web}, annotations: {kubectl.kubernetes.io/restartedAt: now}}, spec: {containers: [{name: web, image: nginx}]}}}}`},
		{name: "scaled as asked", update: "scaling", patch: `{"spec":{"replicas":3}}`,
			after: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 3, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}`},
		{name: "its template changed", update: "rollout", patch: rollout,
			after: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2}, spec: {replicas: 1, template: {metadata: {labels: {app: web}, annotations: {kubectl.kubernetes.io/restartedAt: now}}, spec: {containers: [{name: web, image: nginx, env: [{name: A, value: "1"}]}]}}}}`,
			want:  `Deployment "web" was changed at admission of its rollout:` + "\n" + `spec.template.spec.containers[web].env: want <absent>, got [{"name":"A","value":"1"}]`},
		{name: "annotated under the prefix", update: "scaling", patch: `{"spec":{"replicas":3}}`,
			after: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 2, annotations: {podpreset.admission.kubernetes.io/podpreset-a: "7"}}, spec: {replicas: 3, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}`,
			want:  `metadata.annotations[podpreset.admission.kubernetes.io/podpreset-a]: want <absent>, got "7"`},
		{name: "changed twice meanwhile", update: "rollout", patch: rollout,
			after: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, generation: 3}, spec: {replicas: 1, template: {metadata: {labels: {app: web}, annotations: {kubectl.kubernetes.io/restartedAt: now, presets.presetsim.dev/restarted-for: a}}, spec: {containers: [{name: web, image: nginx}]}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed, err := updatedAsAsked(object(t, before), object(t, tt.after), tt.update, []byte(tt.patch), "podpreset.admission.kubernetes.io/")
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && changed != nil:
				t.Errorf("judged changed: %v", changed)
			case tt.want != "" && (changed == nil || !strings.Contains(changed.Error(), tt.want)):
				t.Errorf("got %v, want a change containing %q", changed, tt.want)
			}
		})
	}
}

func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return u
}
