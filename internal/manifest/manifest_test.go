package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// src is where the test DocStrings "start": line 1 of a DocString is line 10
// of the feature file.
var src = Source{File: "features/x.feature", Line: 10}

// wantErr is one expected *Error; line is absolute (src.Line + line in the
// DocString - 1).
type wantErr struct {
	line int
	path string
	msg  string // substring of Msg
}

// flatten returns the *Errors in err (one, or several joined).
func flatten(t *testing.T, err error) []*Error {
	t.Helper()
	var leaves []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		leaves = j.Unwrap()
	} else {
		leaves = []error{err}
	}
	out := make([]*Error, 0, len(leaves))
	for _, l := range leaves {
		e, ok := l.(*Error)
		if !ok {
			t.Fatalf("error %q is a %T, want *manifest.Error", l, l)
		}
		out = append(out, e)
	}
	return out
}

// checkErrs asserts that err holds exactly the wanted errors, in order.
func checkErrs(t *testing.T, err error, want []wantErr) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %d", len(want))
	}
	got := flatten(t, err)
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(got), len(want), err)
	}
	for i, w := range want {
		g := got[i]
		if g.File != src.File || g.Line != w.line || g.Path != w.path || !strings.Contains(g.Msg, w.msg) {
			t.Errorf("error %d = %#v (%q)\nwant file %q, line %d, path %q, message containing %q",
				i, g, g.Error(), src.File, w.line, w.path, w.msg)
		}
	}
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The proposal's YAML, verbatim, with the mistakes the seeds README lists.
func TestDecodeSeedMistakes(t *testing.T) {
	scheme := Scheme()
	tests := []struct {
		name string
		file string
		want []wantErr
		// full is the exact Error() of the first error.
		full string
	}{{
		name: "simple preset: settings/v1alpha1 and a number as env value",
		file: "invalid-simple-preset.yaml",
		want: []wantErr{
			{11, "apiVersion", `"settings/v1alpha1" has no kind "PodPreset"; did you mean "settings.k8s.io/v1alpha1"?`},
			{21, "spec.env[0].value", `must be a string, got number 6379 (quote it: "6379")`},
		},
		full: `features/x.feature:11: apiVersion: "settings/v1alpha1" has no kind "PodPreset"; did you mean "settings.k8s.io/v1alpha1"?`,
	}, {
		name: "configmap preset: secretName directly under a volume",
		file: "invalid-configmap-preset.yaml",
		want: []wantErr{
			{11, "apiVersion", `did you mean "settings.k8s.io/v1alpha1"?`},
			{21, "spec.env[0].value", `must be a string, got number 6379`},
			{39, "spec.volumes[1].secretName", `unknown field; did you mean "secret.secretName"`},
		},
	}, {
		name: "configmap pod: configMapRef name not indented, secretName under a volume",
		file: "invalid-configmap-pod.yaml",
		want: []wantErr{
			{33, "spec.containers[0].env[0].value", `must be a string, got number 6379 (quote it: "6379")`},
			{40, "spec.containers[0].envFrom[0].name", `unknown field; did you mean to indent it under "configMapRef"?`},
			{45, "spec.volumes[1].secretName", `unknown field`},
		},
	}, {
		name: "preset: configMapRef name not indented",
		file: "invalid-envfrom-preset.yaml",
		want: []wantErr{
			{28, "spec.envFrom[0].name", `unknown field; did you mean to indent it under "configMapRef"?`},
		},
		full: `features/x.feature:28: spec.envFrom[0].name: unknown field; did you mean to indent it under "configMapRef"?`,
	}, {
		name: "replicaset: settings/v1alpha1",
		file: "invalid-replicaset.yaml",
		want: []wantErr{
			{10, "apiVersion", `"settings/v1alpha1" has no kind "ReplicaSet"; did you mean "apps/v1"?`},
		},
		full: `features/x.feature:10: apiVersion: "settings/v1alpha1" has no kind "ReplicaSet"; did you mean "apps/v1"?`,
	}, {
		name: "conflict pod: volumes inside a container's ports",
		file: "invalid-conflict-pod.yaml",
		// Line 19 of the DocString is "- containerPort: 80" under "emptyDir: {}".
		want: []wantErr{{28, "", "invalid YAML: did not find expected key"}},
		full: "features/x.feature:28: invalid YAML: did not find expected key (check the indentation of this line and the ones above it)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Decode(src, readTestdata(t, tt.file), scheme)
			if objs != nil {
				t.Errorf("got %d objects along with the error, want none", len(objs))
			}
			checkErrs(t, err, tt.want)
			if tt.full != "" {
				if got := flatten(t, err)[0].Error(); got != tt.full {
					t.Errorf("Error() = %q\nwant      %q", got, tt.full)
				}
			}
		})
	}
}

// The corrected forms decode cleanly, into typed objects.
func TestDecodeValid(t *testing.T) {
	scheme := Scheme()
	tests := []struct {
		name  string
		file  string
		gvk   schema.GroupVersionKind
		check func(t *testing.T, obj any)
	}{{
		name: "simple preset",
		file: "valid-simple-preset.yaml",
		gvk:  v1alpha1.SchemeGroupVersion.WithKind("PodPreset"),
		check: func(t *testing.T, obj any) {
			pp := obj.(*v1alpha1.PodPreset)
			if pp.Name != "allow-database" || pp.Namespace != "myns" || pp.Spec.Env[0].Value != "6379" ||
				pp.Spec.Selector.MatchLabels["role"] != "frontend" || pp.Spec.Volumes[0].EmptyDir == nil {
				t.Errorf("unexpected preset: %+v", pp)
			}
		},
	}, {
		name: "configmap preset",
		file: "valid-configmap-preset.yaml",
		gvk:  v1alpha1.SchemeGroupVersion.WithKind("PodPreset"),
		check: func(t *testing.T, obj any) {
			pp := obj.(*v1alpha1.PodPreset)
			if pp.Spec.EnvFrom[0].ConfigMapRef.Name != "etcd-env-config" || pp.Spec.Volumes[1].Secret.SecretName != "config-details" ||
				pp.Spec.Env[2].Value != "$(REPLACE_ME)" || !pp.Spec.VolumeMounts[1].ReadOnly {
				t.Errorf("unexpected preset: %+v", pp.Spec)
			}
		},
	}, {
		name: "configmap pod",
		file: "valid-configmap-pod.yaml",
		gvk:  corev1.SchemeGroupVersion.WithKind("Pod"),
		check: func(t *testing.T, obj any) {
			pod := obj.(*corev1.Pod)
			c := pod.Spec.Containers[0]
			if c.EnvFrom[0].ConfigMapRef.Name != "etcd-env-config" || c.Env[0].Value != "6379" ||
				pod.Spec.Volumes[1].Secret.SecretName != "config-details" ||
				pod.Annotations["podpreset.admission.kubernetes.io/allow-database"] != "resource version" {
				t.Errorf("unexpected pod: %+v", pod)
			}
		},
	}, {
		name: "replicaset",
		file: "valid-replicaset.yaml",
		gvk:  appsv1.SchemeGroupVersion.WithKind("ReplicaSet"),
		check: func(t *testing.T, obj any) {
			rs := obj.(*appsv1.ReplicaSet)
			c := rs.Spec.Template.Spec.Containers[0]
			if *rs.Spec.Replicas != 3 || c.Resources.Requests.Cpu().String() != "100m" || c.Ports[0].ContainerPort != 80 ||
				rs.Spec.Selector.MatchExpressions[0].Values[0] != "frontend" {
				t.Errorf("unexpected replicaset: %+v", rs.Spec)
			}
		},
	}, {
		name: "conflict pod",
		file: "valid-conflict-pod.yaml",
		gvk:  corev1.SchemeGroupVersion.WithKind("Pod"),
		check: func(t *testing.T, obj any) {
			pod := obj.(*corev1.Pod)
			if pod.Spec.Containers[0].Ports[0].ContainerPort != 80 || pod.Spec.Volumes[0].Name != "cache-volume" {
				t.Errorf("unexpected pod: %+v", pod.Spec)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Decode(src, readTestdata(t, tt.file), scheme)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(objs) != 1 {
				t.Fatalf("got %d objects, want 1", len(objs))
			}
			o := objs[0]
			if o.GVK != tt.gvk || o.Object.GetObjectKind().GroupVersionKind() != tt.gvk || o.Line != 10 {
				t.Errorf("got GVK %v (object says %v), line %d; want %v, line 10", o.GVK, o.Object.GetObjectKind().GroupVersionKind(), o.Line, tt.gvk)
			}
			tt.check(t, o.Object)
		})
	}
}

func TestDecodeMultiDocument(t *testing.T) {
	scheme := Scheme()
	const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: etcd-env-config
data:
  number_of_members: "1"
`
	t.Run("objects in order, each with its line", func(t *testing.T) {
		content := configMap + `---
# the preset
apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata:
  name: p
spec:
  selector: {}
  env:
    - {name: A, value: "1"}
--- # a comment after the marker
...
---
apiVersion: example.com/v1
kind: Widget
`
		objs, err := Decode(src, content, scheme)
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 3 {
			t.Fatalf("got %d objects, want 3", len(objs))
		}
		wantLines := []int{10, 18, 29}
		wantKinds := []string{"ConfigMap", "PodPreset", "Widget"}
		for i, o := range objs {
			if o.Line != wantLines[i] || o.GVK.Kind != wantKinds[i] {
				t.Errorf("object %d: %s at line %d, want %s at line %d", i, o.GVK.Kind, o.Line, wantKinds[i], wantLines[i])
			}
		}
		if _, ok := objs[2].Object.(*unstructured.Unstructured); !ok {
			t.Errorf("Widget decoded as %T, want unstructured", objs[2].Object)
		}
	})
	t.Run("a List (kubectl get -o yaml) stands for its items, each with its line", func(t *testing.T) {
		content := `apiVersion: v1
kind: List
items:
- apiVersion: settings.k8s.io/v1alpha1
  kind: PodPreset
  metadata:
    name: a
  spec:
    selector: {}
    env:
    - {name: A, value: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: b
metadata:
  resourceVersion: ""
`
		objs, err := Decode(src, content, scheme)
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 2 || objs[0].GVK.Kind != "PodPreset" || objs[1].GVK.Kind != "ConfigMap" {
			t.Fatalf("got %d objects (%v), want the PodPreset and the ConfigMap", len(objs), objs)
		}
		if objs[0].Line != 13 || objs[1].Line != 21 {
			t.Errorf("items at lines %d and %d, want 13 and 21", objs[0].Line, objs[1].Line)
		}
	})
	tests := []struct {
		name    string
		content string
		want    []wantErr
	}{{
		name: "type error in an item of a List, at the item's line",
		content: `apiVersion: settings.k8s.io/v1alpha1
kind: PodPresetList
items:
- apiVersion: settings.k8s.io/v1alpha1
  kind: PodPreset
  metadata:
    name: p
  spec:
    selector: {}
    env:
    - name: A
      value: 1
`,
		want: []wantErr{{21, "spec.env[0].value", `must be a string, got number 1 (quote it: "1")`}},
	}, {
		name: "type error in the second document",
		content: configMap + `---
apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata:
  name: p
spec:
  selector: {}
  env:
    - name: A
      value: 1
`,
		want: []wantErr{{25, "spec.env[0].value", `must be a string, got number 1 (quote it: "1")`}},
	}, {
		name: "syntax error in the second document, unknown field in the third",
		content: configMap + `---
apiVersion: v1
kind: ConfigMap
data:
  a: b: c
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  nmespace: y
`,
		want: []wantErr{
			{20, "", "invalid YAML: mapping values are not allowed in this context"},
			{26, "metadata.nmespace", `unknown field; did you mean "namespace"?`},
		},
	}, {
		name:    "content after the separator",
		content: configMap + "--- {a: 1}\n",
		want:    []wantErr{{16, "", `content after the document separator "--- {a: 1}"`}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(src, tt.content, scheme)
			checkErrs(t, err, tt.want)
		})
	}
}

func TestDecodeEmpty(t *testing.T) {
	scheme := Scheme()
	for name, content := range map[string]string{
		"empty":                 "",
		"blank lines":           "\n  \n\n",
		"only a comment":        "# nothing here yet\n",
		"only separators":       "---\n---\n",
		"comments and markers":  "---\n# one\n---\n# two\n...\n",
		"explicit null":         "~\n",
		"no trailing newline":   "# c",
		"windows line endings":  "---\r\n# c\r\n",
		"marker with a comment": "--- # hello\n",
	} {
		t.Run(name, func(t *testing.T) {
			objs, err := Decode(src, content, scheme)
			if err != nil || len(objs) != 0 {
				t.Errorf("got %d objects, error %v; want none", len(objs), err)
			}
		})
	}
}

func TestDecodeUnregisteredKind(t *testing.T) {
	content := `apiVersion: example.com/v1
kind: PodPolicy
metadata:
  name: other
  namespace: myns
spec:
  anything: [1, 2]
  goes: {here: true}
`
	objs, err := Decode(src, content, Scheme())
	if err != nil {
		t.Fatal(err)
	}
	u, ok := objs[0].Object.(*unstructured.Unstructured)
	if !ok {
		t.Fatalf("got %T, want *unstructured.Unstructured", objs[0].Object)
	}
	if objs[0].GVK != (schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "PodPolicy"}) ||
		u.GetName() != "other" || u.GetNamespace() != "myns" || u.GetKind() != "PodPolicy" {
		t.Errorf("unexpected object %v, GVK %v", u, objs[0].GVK)
	}
	if v, _, _ := unstructured.NestedInt64(u.Object, "spec", "anything", "1"); v != 0 { // not a map path; just no panic
		t.Errorf("unexpected %d", v)
	}
	if b, found, err := unstructured.NestedBool(u.Object, "spec", "goes", "here"); !found || err != nil || !b {
		t.Errorf("spec.goes.here = %v, %v, %v", b, found, err)
	}
}

func TestDecodeKindErrors(t *testing.T) {
	scheme := Scheme()
	tests := []struct {
		name    string
		content string
		want    []wantErr
	}{{
		name:    "missing apiVersion",
		content: "# a pod\nkind: Pod\nmetadata: {name: a}\n",
		want:    []wantErr{{11, "apiVersion", "required field is missing"}},
	}, {
		name:    "missing kind",
		content: "apiVersion: v1\nmetadata: {name: a}\n",
		want:    []wantErr{{10, "kind", "required field is missing"}},
	}, {
		name:    "missing both",
		content: "metadata: {name: a}\n",
		want:    []wantErr{{10, "apiVersion", "required field is missing"}, {10, "kind", "required field is missing"}},
	}, {
		name:    "apiVersion not a string",
		content: "kind: Pod\napiVersion: 1\n",
		want:    []wantErr{{11, "apiVersion", "must be a string, got number 1"}},
	}, {
		name:    "malformed apiVersion",
		content: "kind: Pod\napiVersion: a/b/c\n",
		want:    []wantErr{{11, "apiVersion", `invalid apiVersion "a/b/c"`}},
	}, {
		name:    "pod under apps/v1",
		content: "apiVersion: apps/v1\nkind: Pod\nmetadata: {name: a}\n",
		want:    []wantErr{{10, "apiVersion", `"apps/v1" has no kind "Pod"; did you mean "v1"?`}},
	}, {
		name:    "wrong apiVersion still reports the other problems",
		content: "apiVersion: v1\nkind: Deployment\nspec:\n  replica: 3\n",
		want: []wantErr{
			{10, "apiVersion", `did you mean "apps/v1"?`},
			{13, "spec.replica", `unknown field; did you mean "replicas"?`},
		},
	}, {
		name:    "kind in the wrong case",
		content: "apiVersion: v1\nkind: pod\n",
		want:    []wantErr{{11, "kind", `"v1" has no kind "pod"; did you mean "Pod"?`}},
	}, {
		name:    "unknown kind in a built-in group",
		content: "apiVersion: apps/v1\nkind: Pdo\n",
		want:    []wantErr{{11, "kind", `"apps/v1" has no kind "Pdo"`}},
	}, {
		name:    "not a mapping",
		content: "- a\n- b\n",
		want:    []wantErr{{10, "", "expected an object (a mapping with apiVersion, kind, metadata...), got a list"}},
	}, {
		name:    "a scalar",
		content: "\nhello\n",
		want:    []wantErr{{11, "", `got the scalar "hello"`}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(src, tt.content, scheme)
			checkErrs(t, err, tt.want)
		})
	}
}

func TestDecodeFieldErrors(t *testing.T) {
	scheme := Scheme()
	const pod = "apiVersion: v1\nkind: Pod\n"
	tests := []struct {
		name    string
		content string
		want    []wantErr
	}{{
		name: "duplicate field",
		content: pod + `metadata:
  name: a
  labels: {app: x}
  name: b
`,
		want: []wantErr{{15, "metadata.name", "duplicate field (first set at line 13)"}},
	}, {
		name:    "unknown top-level field",
		content: pod + "metadata: {name: a}\nstatus: {}\nextra: 1\n",
		want:    []wantErr{{14, "extra", "unknown field"}},
	}, {
		name: "field in the wrong case",
		content: pod + `spec:
  containers:
    - name: c
      image: i
      volumeMounts:
        - name: v
          mountpath: /x
`,
		want: []wantErr{{18, "spec.containers[0].volumeMounts[0].mountpath", `unknown field; did you mean "mountPath"?`}},
	}, {
		name: "quoted integer",
		content: pod + `spec:
  containers:
    - name: c
      ports:
        - containerPort: "80"
`,
		want: []wantErr{{16, "spec.containers[0].ports[0].containerPort", `must be an integer, got string "80" (remove the quotes: 80)`}},
	}, {
		name: "number and YAML 1.1 boolean where strings are expected, in several list items",
		content: pod + `spec:
  containers:
    - name: a
      env:
        - {name: A, value: ok}
        - {name: B, value: 1.50}
    - name: b
      env:
        - name: C
          value: yes
`,
		want: []wantErr{
			{17, "spec.containers[0].env[1].value", `must be a string, got number 1.50 (quote it: "1.50")`},
			{21, "spec.containers[1].env[0].value", `must be a string, got boolean yes (quote it: "yes")`},
		},
	}, {
		name: "map values and keys with dots",
		content: pod + `metadata:
  name: a
  labels:
    app: 1
  annotations:
    podpreset.admission.kubernetes.io/exclude: true
`,
		want: []wantErr{
			{15, "metadata.labels.app", `must be a string, got number 1 (quote it: "1")`},
			{17, "metadata.annotations[podpreset.admission.kubernetes.io/exclude]", `must be a string, got boolean true (quote it: "true")`},
		},
	}, {
		name:    "a mapping where a list is expected",
		content: pod + "spec:\n  containers:\n    name: c\n",
		want:    []wantErr{{14, "spec.containers", `must be a list, got a mapping (start each item of the list with "- ")`}},
	}, {
		name: "a bad quantity",
		content: pod + `spec:
  containers:
    - name: c
      resources:
        requests:
          memory: 1Gi
          cpu: lots
`,
		want: []wantErr{{18, "spec.containers[0].resources.requests.cpu", "quantities must match the regular expression"}},
	}, {
		name: "a list where an int-or-string is expected",
		content: `apiVersion: v1
kind: Service
metadata: {name: s}
spec:
  ports:
    - port: 80
      targetPort: [8080]
`,
		want: []wantErr{{16, "spec.ports[0].targetPort", "must be an integer or a string, got a list"}},
	}, {
		name: "type errors and unknown fields together",
		content: pod + `metadata:
  name: a
spec:
  containers:
    - name: c
      ports:
        - containerPort: http
      env:
        - name: A
          value: 2
          valueFrm: {}
  volumes:
    - name: v
      secretName: s
`,
		want: []wantErr{
			{18, "spec.containers[0].ports[0].containerPort", `must be an integer, got string "http"`},
			{21, "spec.containers[0].env[0].value", "must be a string, got number 2"},
			{22, "spec.containers[0].env[0].valueFrm", "unknown field"},
			{25, "spec.volumes[0].secretName", `did you mean "secret.secretName"`},
		},
	}, {
		name: "alias and merge keys",
		content: pod + `metadata:
  name: a
  labels: &labels
    app: x
spec:
  containers:
    - &c
      name: c
      image: i
      imagePullPolcy: Always
    - <<: *c
      name: d
`,
		want: []wantErr{
			{21, "spec.containers[0].imagePullPolcy", "unknown field"},
			{21, "spec.containers[1].imagePullPolcy", "unknown field"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(src, tt.content, scheme)
			checkErrs(t, err, tt.want)
		})
	}
}

func TestDecodeSyntaxErrors(t *testing.T) {
	scheme := Scheme()
	tests := []struct {
		name    string
		content string
		want    []wantErr
	}{{
		name:    "mapping value on the first line",
		content: "kind: Pod: x\n",
		want:    []wantErr{{10, "", "invalid YAML: mapping values are not allowed in this context"}},
	}, {
		name:    "tab indentation",
		content: "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: a\n",
		want:    []wantErr{{13, "", "invalid YAML: found character that cannot start any token"}},
	}, {
		name:    "unterminated quote",
		content: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"a\n",
		want:    []wantErr{{13, "", "invalid YAML: found unexpected end of stream"}},
	}, {
		name:    "unclosed flow mapping",
		content: "apiVersion: v1\nkind: Pod\nmetadata: {name: a\nspec: {}\n",
		want:    []wantErr{{12, "", "invalid YAML: did not find expected ',' or '}'"}},
	}, {
		name:    "control character",
		content: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\x01\n",
		want:    []wantErr{{13, "", "invalid YAML: control characters are not allowed"}},
	}, {
		name:    "invalid UTF-8",
		content: "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \xff\n",
		want:    []wantErr{{13, "", "invalid YAML: invalid leading UTF-8 octet"}},
	}, {
		name:    "list item outdented",
		content: "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: a\n   - name: b\n",
		want:    []wantErr{{15, "", "invalid YAML: "}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(src, tt.content, scheme)
			checkErrs(t, err, tt.want)
		})
	}
}

// notRegistered is a runtime.Object the scheme does not know.
type notRegistered struct{ corev1.Pod }

func TestDecodeInto(t *testing.T) {
	scheme := Scheme()
	const pod = `apiVersion: v1
kind: Pod
metadata:
  name: website
spec:
  containers:
    - name: website
      image: ecorp/website
`
	t.Run("pod", func(t *testing.T) {
		var p corev1.Pod
		if err := DecodeInto(src, pod, scheme, &p); err != nil {
			t.Fatal(err)
		}
		if p.Name != "website" || p.Spec.Containers[0].Image != "ecorp/website" || p.Kind != "Pod" || p.APIVersion != "v1" {
			t.Errorf("unexpected pod %+v", p)
		}
	})
	t.Run("apiVersion and kind filled in", func(t *testing.T) {
		var pp v1alpha1.PodPreset
		err := DecodeInto(src, "metadata: {name: p}\nspec:\n  selector: {}\n  env: [{name: A, value: b}]\n", scheme, &pp)
		if err != nil {
			t.Fatal(err)
		}
		if pp.APIVersion != "settings.k8s.io/v1alpha1" || pp.Kind != "PodPreset" || pp.Spec.Env[0].Value != "b" {
			t.Errorf("unexpected preset %+v", pp)
		}
	})
	t.Run("unstructured accepts any kind", func(t *testing.T) {
		u := &unstructured.Unstructured{}
		if err := DecodeInto(src, "apiVersion: example.com/v1\nkind: Thing\nspec: {x: 1}\n", scheme, u); err != nil {
			t.Fatal(err)
		}
		if u.GetKind() != "Thing" || u.GetAPIVersion() != "example.com/v1" {
			t.Errorf("unexpected object %v", u)
		}
	})

	tests := []struct {
		name    string
		content string
		into    func() runtime.Object
		want    []wantErr
	}{{
		name:    "mismatched kind",
		content: readTestdata(t, "valid-replicaset.yaml"),
		want:    []wantErr{{11, "kind", `must be "Pod" here, got "ReplicaSet"`}},
	}, {
		name:    "mismatched apiVersion",
		content: "apiVersion: settings/v1alpha1\nkind: PodPreset\nspec:\n  selector: {}\n  env: [{name: A, value: 1}]\n",
		into:    func() runtime.Object { return &v1alpha1.PodPreset{} },
		want: []wantErr{
			{10, "apiVersion", `"settings/v1alpha1" has no kind "PodPreset"; did you mean "settings.k8s.io/v1alpha1"?`},
			{14, "spec.env[0].value", "must be a string"},
		},
	}, {
		name:    "another version of the kind",
		content: "apiVersion: apps/v1beta2\nkind: ReplicaSet\n",
		into:    func() runtime.Object { return &appsv1.ReplicaSet{} },
		want:    []wantErr{{10, "apiVersion", `must be "apps/v1" here, got "apps/v1beta2"`}},
	}, {
		name:    "two documents",
		content: pod + "---\n" + pod,
		want:    []wantErr{{19, "", "expected one object, found 2 documents"}},
	}, {
		name:    "no document",
		content: "# nothing\n",
		want:    []wantErr{{10, "", "expected one object, found no document"}},
	}, {
		name:    "strict errors",
		content: pod + "  restartPolcy: Never\n",
		want:    []wantErr{{18, "spec.restartPolcy", "unknown field"}},
	}, {
		name:    "syntax error",
		content: pod + "  : :\n- x\n",
		want:    []wantErr{{18, "", "invalid YAML"}},
	}, {
		name:    "unstructured without kind",
		content: "apiVersion: example.com/v1\n",
		into:    func() runtime.Object { return &unstructured.Unstructured{} },
		want:    []wantErr{{10, "kind", "required field is missing"}},
	}, {
		name:    "type not in the scheme",
		content: pod,
		into:    func() runtime.Object { return &notRegistered{} },
		want:    []wantErr{{10, "", "the type is not registered in the scheme"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var into runtime.Object = &corev1.Pod{}
			if tt.into != nil {
				into = tt.into()
			}
			err := DecodeInto(src, tt.content, scheme, into)
			checkErrs(t, err, tt.want)
		})
	}
	t.Run("nil object", func(t *testing.T) {
		var p *corev1.Pod
		checkErrs(t, DecodeInto(src, pod, scheme, p), []wantErr{{10, "", "no object to decode into"}})
	})
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		name string
		err  Error
		want string
	}{
		{"all parts", Error{File: "features/simple.feature", Line: 23, Path: "spec.env[0].value", Msg: "bad"}, "features/simple.feature:23: spec.env[0].value: bad"},
		{"no path", Error{File: "f.feature", Line: 3, Msg: "bad"}, "f.feature:3: bad"},
		{"no file", Error{Line: 3, Path: "kind", Msg: "bad"}, "line 3: kind: bad"},
		{"no line", Error{File: "f.feature", Msg: "bad"}, "f.feature: bad"},
		{"message only", Error{Msg: "bad"}, "bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestErrorsAreJoined(t *testing.T) {
	_, err := Decode(src, readTestdata(t, "invalid-configmap-pod.yaml"), Scheme())
	var e *Error
	if !errors.As(err, &e) || e.Line != 33 {
		t.Errorf("errors.As found %v, want the error at line 33", e)
	}
	if n := strings.Count(err.Error(), "\n"); n != 2 {
		t.Errorf("Error() has %d newlines, want 2 (one error per line):\n%v", n, err)
	}
}

func TestScheme(t *testing.T) {
	s := Scheme()
	for _, gvk := range []schema.GroupVersionKind{
		v1alpha1.SchemeGroupVersion.WithKind("PodPreset"),
		corev1.SchemeGroupVersion.WithKind("Pod"),
		appsv1.SchemeGroupVersion.WithKind("ReplicaSet"),
	} {
		if !s.Recognizes(gvk) {
			t.Errorf("scheme does not recognize %v", gvk)
		}
	}
	if s == Scheme() {
		t.Error("Scheme returned the same scheme twice, want a new one")
	}
}

// TestDecodeEachConcurrently: documents decoded by several workers are
// visited in their order, with every problem, as one worker decodes them;
// a visitor that keeps nothing keeps the file's objects out of memory.
func TestDecodeEachConcurrently(t *testing.T) {
	var b strings.Builder
	for i := range 700 {
		switch {
		case i%97 == 5:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p%d\nspec:\n  containers: 3\n---\n", i)
		case i%101 == 7:
			fmt.Fprintf(&b, "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: l%d\n  spec:\n    containers:\n    - name: c\n      image: x\n---\n", i, i)
		case i%3 == 0:
			fmt.Fprintf(&b, "apiVersion: settings.k8s.io/v1alpha1\nkind: PodPreset\nmetadata:\n  name: s%d\nspec:\n  selector: {}\n  env:\n  - name: A\n    value: x\n---\n", i)
		default:
			fmt.Fprintf(&b, "# a comment\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p%d\nspec:\n  containers:\n  - name: c\n    image: x\n---\n", i)
		}
	}
	content := b.String()
	type seen struct {
		kind string
		line int
	}
	decode := func(workers int) ([]seen, error) {
		var out []seen
		err := DecodeEach(src, content, Scheme(), workers, func(o Object) []*Error {
			out = append(out, seen{o.GVK.Kind, o.Line})
			return nil
		})
		return out, err
	}
	want, wantErr := decode(1)
	if wantErr == nil || len(want) < 690 {
		t.Fatalf("one worker: %d objects, error %v; want about 700 and the invalid pods' errors", len(want), wantErr)
	}
	for _, workers := range []int{2, 4, 16} {
		got, err := decode(workers)
		if err == nil || err.Error() != wantErr.Error() {
			t.Errorf("%d workers: error %v, want %v", workers, err, wantErr)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: %d objects, not in the order one worker visits them (%d)", workers, len(got), len(want))
		}
	}
}
