package valuediff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestSubset(t *testing.T) {
	const deployment = `{
	  "metadata": {"name": "web", "labels": {"app": "web", "tier": "front"}},
	  "spec": {
	    "replicas": 3,
	    "template": {"spec": {
	      "containers": [
	        {"name": "sidecar", "image": "proxy"},
	        {"name": "web", "image": "nginx", "ports": [{"containerPort": 80}, {"containerPort": 443}],
	         "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
	         "args": ["--one", "--two"],
	         "envFrom": [{"configMapRef": {"name": "x"}}, {"secretRef": {"name": "y"}}]}
	      ]
	    }}
	  },
	  "status": {"readyReplicas": 3}
	}`
	tests := []struct {
		name   string
		want   string
		got    string
		schema any
		diffs  []string
	}{
		{name: "a map is matched as a subset", schema: &appsv1.Deployment{}, got: deployment,
			want: `{"metadata": {"labels": {"app": "web"}}, "status": {"readyReplicas": 3}}`},
		{name: "a key want has and got lacks", schema: &appsv1.Deployment{}, got: deployment,
			want:  `{"metadata": {"annotations": {"a": "b"}}}`,
			diffs: []string{`metadata.annotations: want {"a":"b"}, got <absent>`}},
		{name: "numbers by value", schema: &appsv1.Deployment{}, got: deployment,
			want: `{"spec": {"replicas": 3.0}}`},
		{name: "a scalar differs", schema: &appsv1.Deployment{}, got: deployment,
			want:  `{"status": {"readyReplicas": 2}}`,
			diffs: []string{`status.readyReplicas: want 2, got 3`}},
		{name: "containers by name, whatever their order and number", schema: &appsv1.Deployment{}, got: deployment,
			want: `{"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}`},
		{name: "a keyed item that differs is named by its key", schema: &appsv1.Deployment{}, got: deployment,
			want:  `{"spec": {"template": {"spec": {"containers": [{"name": "web", "env": [{"name": "B", "value": "3"}]}]}}}}`,
			diffs: []string{`spec.template.spec.containers[web].env[B].value: want "3", got "2"`}},
		{name: "a keyed item got lacks", schema: &appsv1.Deployment{}, got: deployment,
			want:  `{"spec": {"template": {"spec": {"containers": [{"name": "db"}]}}}}`,
			diffs: []string{`spec.template.spec.containers[db]: want {"name":"db"}, got <absent>`}},
		{name: "ports by containerPort, their merge key", schema: &appsv1.Deployment{}, got: deployment,
			want: `{"spec": {"template": {"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 443}]}]}}}}`},
		{name: "a list with no merge key by position: the same length", schema: &appsv1.Deployment{}, got: deployment,
			want:  `{"spec": {"template": {"spec": {"containers": [{"name": "web", "args": ["--one"]}]}}}}`,
			diffs: []string{`spec.template.spec.containers[web].args[1]: want <absent>, got "--two"`}},
		{name: "envFrom has no merge key: by position, each item a subset", schema: &appsv1.Deployment{}, got: deployment,
			want: `{"spec": {"template": {"spec": {"containers": [{"name": "web", "envFrom": [{"configMapRef": {}}, {"secretRef": {"name": "y"}}]}]}}}}`},
		{name: "without a Go type every list is by position",
			got:   `{"spec": {"containers": [{"name": "sidecar"}, {"name": "web"}]}}`,
			want:  `{"spec": {"containers": [{"name": "web"}]}}`,
			diffs: []string{`spec.containers[0].name: want "web", got "sidecar"`, `spec.containers[1]: want <absent>, got {"name":"web"}`}},
		{name: "a map where got has a scalar", schema: &corev1.ConfigMap{}, got: `{"data": "x"}`,
			want:  `{"data": {"k": "v"}}`,
			diffs: []string{`data: want {"k":"v"}, got "x"`}},
		{name: "a ConfigMap's data, a map of strings", schema: &corev1.ConfigMap{}, got: `{"data": {"k": "v", "other": "w"}}`,
			want: `{"data": {"k": "v"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotDiffs []string
			for _, d := range Subset("", fromJSON(t, tt.want), fromJSON(t, tt.got), tt.schema) {
				gotDiffs = append(gotDiffs, d.String())
			}
			if diff := cmp.Diff(tt.diffs, gotDiffs); diff != "" {
				t.Errorf("Subset() differences (-want +got):\n%s", diff)
			}
		})
	}
}
