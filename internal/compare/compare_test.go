package compare

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"presetsim.dev/presetsim/internal/compare/valuediff"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const prefix = "podpreset.admission.kubernetes.io/"

// basePod is the pod of the "simple" seed feature after injection.
const basePod = `
metadata:
  name: website
  labels:
    app: website
    role: frontend
  annotations:
    podpreset.admission.kubernetes.io/podpreset-allow-database: "1000"
spec:
  containers:
  - name: website
    image: nginx
    ports:
    - containerPort: 80
    env:
    - name: DB_PORT
      value: "6379"
    - name: DB_HOST
      value: db
    volumeMounts:
    - mountPath: /cache
      name: cache-volume
  volumes:
  - name: cache-volume
    emptyDir: {}
`

// tokenVolume is what the ServiceAccount admission plug-in adds.
var tokenVolume = corev1.Volume{
	Name: "kube-api-access-x7k2p",
	VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{
			ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"},
		}},
	}},
}

var tokenMount = corev1.VolumeMount{
	Name:      "kube-api-access-x7k2p",
	ReadOnly:  true,
	MountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
}

// defaultTolerations are what DefaultTolerationSeconds adds.
func defaultTolerations() []corev1.Toleration {
	seconds := int64(300)
	return []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds},
	}
}

// addServerItems adds what other built-in admission plug-ins add.
func addServerItems(p *corev1.Pod) {
	p.Spec.Volumes = append(p.Spec.Volumes, tokenVolume)
	for i := range p.Spec.Containers {
		p.Spec.Containers[i].VolumeMounts = append(p.Spec.Containers[i].VolumeMounts, tokenMount)
	}
	for i := range p.Spec.InitContainers {
		p.Spec.InitContainers[i].VolumeMounts = append(p.Spec.InitContainers[i].VolumeMounts, tokenMount)
	}
	p.Spec.Tolerations = append(p.Spec.Tolerations, defaultTolerations()...)
}

func parsePod(t *testing.T, manifest string) *corev1.Pod {
	t.Helper()
	var p corev1.Pod
	if err := yaml.UnmarshalStrict([]byte(manifest), &p); err != nil {
		t.Fatalf("unable to parse the test pod: %v", err)
	}
	return &p
}

func env(p *corev1.Pod) *[]corev1.EnvVar { return &p.Spec.Containers[0].Env }

func TestPods(t *testing.T) {
	tests := []struct {
		name string
		opts *Options // nil: the canonical preset prefix
		want func(*corev1.Pod)
		got  func(*corev1.Pod)
		// diffs are the expected Difference.String()s; none means equal.
		diffs []string
	}{
		{
			name: "identical pods",
		},
		{
			name: "env value changed",
			got:  func(p *corev1.Pod) { (*env(p))[0].Value = "6380" },
			diffs: []string{
				`spec.containers[website].env[DB_PORT].value: want "6379", got "6380"`,
			},
		},
		{
			name: "missing env var",
			got:  func(p *corev1.Pod) { *env(p) = (*env(p))[:1] },
			diffs: []string{
				`spec.containers[website].env[DB_HOST]: want {"name":"DB_HOST","value":"db"}, got <absent>`,
			},
		},
		{
			name: "extra env var",
			got: func(p *corev1.Pod) {
				*env(p) = append(*env(p), corev1.EnvVar{Name: "REDIS", Value: "on"})
			},
			diffs: []string{
				`spec.containers[website].env[REDIS]: want <absent>, got {"name":"REDIS","value":"on"}`,
			},
		},
		{
			name: "missing volume",
			want: func(p *corev1.Pod) {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{
					Name:         "secret-volume",
					VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "db"}},
				})
			},
			diffs: []string{
				`spec.volumes[secret-volume]: want {"name":"secret-volume","secret":{"secretName":"db"}}, got <absent>`,
			},
		},
		{
			name: "all volumes missing",
			got:  func(p *corev1.Pod) { p.Spec.Volumes = nil },
			diffs: []string{
				`spec.volumes: want [{"emptyDir":{},"name":"cache-volume"}], got <absent>`,
			},
		},
		{
			name: "same env vars in another order",
			got: func(p *corev1.Pod) {
				e := *env(p)
				e[0], e[1] = e[1], e[0]
			},
			diffs: []string{
				`spec.containers[website].env: order: want [DB_PORT DB_HOST], got [DB_HOST DB_PORT]`,
			},
		},
		{
			name: "order and value differ",
			got: func(p *corev1.Pod) {
				e := *env(p)
				e[0], e[1] = e[1], e[0]
				e[1].Value = "6380"
			},
			diffs: []string{
				`spec.containers[website].env: order: want [DB_PORT DB_HOST], got [DB_HOST DB_PORT]`,
				`spec.containers[website].env[DB_PORT].value: want "6379", got "6380"`,
			},
		},
		{
			name: "order of the common items differs, with an item missing",
			want: func(p *corev1.Pod) {
				*env(p) = append(*env(p), corev1.EnvVar{Name: "DB_USER", Value: "app"})
			},
			got: func(p *corev1.Pod) {
				e := *env(p)
				e[0], e[1] = e[1], e[0]
			},
			diffs: []string{
				`spec.containers[website].env: order: want [DB_PORT DB_HOST DB_USER], got [DB_HOST DB_PORT]`,
				`spec.containers[website].env[DB_USER]: want {"name":"DB_USER","value":"app"}, got <absent>`,
			},
		},
		{
			name: "expected annotation missing",
			got:  func(p *corev1.Pod) { p.Annotations = nil },
			diffs: []string{
				`metadata.annotations[podpreset.admission.kubernetes.io/podpreset-allow-database]: want "1000", got <absent>`,
			},
		},
		{
			name: "annotation with a wrong value",
			got:  func(p *corev1.Pod) { p.Annotations[prefix+"podpreset-allow-database"] = "999" },
			diffs: []string{
				`metadata.annotations[podpreset.admission.kubernetes.io/podpreset-allow-database]: want "1000", got "999"`,
			},
		},
		{
			name: "unexpected preset annotation",
			got:  func(p *corev1.Pod) { p.Annotations[prefix+"podpreset-other"] = "42" },
			diffs: []string{
				`metadata.annotations[podpreset.admission.kubernetes.io/podpreset-other]: want <absent>, got "42"`,
			},
		},
		{
			name: "extra annotation outside the preset prefix is ignored",
			got:  func(p *corev1.Pod) { p.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{}" },
		},
		{
			name: "implementation with another prefix",
			opts: &Options{AnnotationPrefix: "presets.example.com/"},
			got: func(p *corev1.Pod) {
				p.Annotations[prefix+"podpreset-other"] = "42"
				p.Annotations["presets.example.com/db"] = "7"
			},
			diffs: []string{
				`metadata.annotations[presets.example.com/db]: want <absent>, got "7"`,
			},
		},
		{
			name: "no prefix: extra annotations are never a difference",
			opts: &Options{},
			got:  func(p *corev1.Pod) { p.Annotations[prefix+"podpreset-other"] = "42" },
		},
		{
			name: "labels differ",
			got: func(p *corev1.Pod) {
				p.Labels["app"] = "shop"
				delete(p.Labels, "role")
				p.Labels["tier"] = "web"
			},
			diffs: []string{
				`metadata.labels[app]: want "website", got "shop"`,
				`metadata.labels[role]: want "frontend", got <absent>`,
				`metadata.labels[tier]: want <absent>, got "web"`,
			},
		},
		{
			name: "nil labels equal empty labels",
			want: func(p *corev1.Pod) { p.Labels = nil },
			got:  func(p *corev1.Pod) { p.Labels = map[string]string{} },
		},
		{
			name: "token volume, mounts and default tolerations on got are ignored",
			got:  addServerItems,
		},
		{
			name: "token volume, mounts and default tolerations on want are ignored",
			want: addServerItems,
		},
		{
			name: "a pod with only the token volume matches a pod without volumes",
			want: func(p *corev1.Pod) {
				p.Spec.Volumes = nil
				p.Spec.Containers[0].VolumeMounts = nil
			},
			got: func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{tokenVolume}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{tokenMount}
			},
		},
		{
			name: "other tolerations are compared",
			got: func(p *corev1.Pod) {
				addServerItems(p)
				p.Spec.Tolerations[1].TolerationSeconds = nil
			},
			diffs: []string{
				`spec.tolerations: want <absent>, got [{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists"}]`,
			},
		},
		{
			name: "a non-projected volume named like the token volume is compared",
			got: func(p *corev1.Pod) {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{
					Name:         "kube-api-access-mine",
					VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}},
				})
			},
			diffs: []string{
				`spec.volumes[kube-api-access-mine]: want <absent>, got {"emptyDir":{},"name":"kube-api-access-mine"}`,
			},
		},
		{
			name: "nodeName ignored when want has none",
			got:  func(p *corev1.Pod) { p.Spec.NodeName = "node-1" },
		},
		{
			name: "nodeName compared when want has one",
			want: func(p *corev1.Pod) { p.Spec.NodeName = "node-1" },
			got:  func(p *corev1.Pod) { p.Spec.NodeName = "node-2" },
			diffs: []string{
				`spec.nodeName: want "node-1", got "node-2"`,
			},
		},
		{
			name: "init containers keyed by name",
			want: func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "db:1"}, {Name: "seed", Image: "seed:1"}}
			},
			got: func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "db:1"}, {Name: "seed", Image: "seed:2"}}
			},
			diffs: []string{
				`spec.initContainers[seed].image: want "seed:1", got "seed:2"`,
			},
		},
		{
			name: "duplicate keys fall back to index",
			want: func(p *corev1.Pod) { (*env(p))[1].Name = "DB_PORT" },
			got: func(p *corev1.Pod) {
				(*env(p))[1].Name = "DB_PORT"
				(*env(p))[1].Value = "dbhost"
			},
			diffs: []string{
				`spec.containers[website].env[1].value: want "db", got "dbhost"`,
			},
		},
		{
			name: "ports keyed by port and protocol",
			got:  func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 8080 },
			diffs: []string{
				`spec.containers[website].ports[80/TCP]: want {"containerPort":80}, got <absent>`,
				`spec.containers[website].ports[8080/TCP]: want <absent>, got {"containerPort":8080}`,
			},
		},
		{
			name: "volume mounts keyed by mount path",
			got:  func(p *corev1.Pod) { p.Spec.Containers[0].VolumeMounts[0].ReadOnly = true },
			diffs: []string{
				`spec.containers[website].volumeMounts[/cache].readOnly: want <absent>, got true`,
			},
		},
		{
			name: "envFrom keyed by source and prefix",
			want: func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{
					{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "etcd-env-config"}}},
					{Prefix: "DB_", SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}},
				}
			},
			got: func(p *corev1.Pod) {
				p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{
					{Prefix: "DB_", SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}}},
				}
			},
			diffs: []string{
				`spec.containers[website].envFrom[configMapRef:etcd-env-config]: want {"configMapRef":{"name":"etcd-env-config"}}, got <absent>`,
			},
		},
		{
			name: "differences in walk order: labels, annotations, spec",
			got: func(p *corev1.Pod) {
				p.Spec.Containers[0].Image = "nginx:1.29"
				p.Annotations[prefix+"podpreset-other"] = "42"
				p.Labels["app"] = "shop"
			},
			diffs: []string{
				`metadata.labels[app]: want "website", got "shop"`,
				`metadata.annotations[podpreset.admission.kubernetes.io/podpreset-other]: want <absent>, got "42"`,
				`spec.containers[website].image: want "nginx", got "nginx:1.29"`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got := parsePod(t, basePod), parsePod(t, basePod)
			if tt.want != nil {
				tt.want(want)
			}
			if tt.got != nil {
				tt.got(got)
			}
			opts := Options{AnnotationPrefix: prefix}
			if tt.opts != nil {
				opts = *tt.opts
			}
			wantCopy, gotCopy := want.DeepCopy(), got.DeepCopy()

			m := Pods(want, got, opts)

			if diff := cmp.Diff(tt.diffs, strs(m)); diff != "" {
				t.Errorf("differences (-want +got):\n%s", diff)
			}
			if len(tt.diffs) > 0 && m != nil && !strings.HasPrefix(m.Unified, "--- want\n+++ got\n@@ ") {
				t.Errorf("unified diff does not start with the want/got header:\n%s", m.Unified)
			}
			if diff := cmp.Diff(wantCopy, want); diff != "" {
				t.Errorf("Pods modified the expected pod (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(gotCopy, got); diff != "" {
				t.Errorf("Pods modified the actual pod (-before +after):\n%s", diff)
			}
		})
	}
}

func strs(m *Mismatch) []string {
	if m == nil {
		return nil
	}
	out := make([]string, len(m.Differences))
	for i, d := range m.Differences {
		out[i] = d.String()
	}
	return out
}

func TestPodsNil(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
	tests := []struct {
		name      string
		want, got *corev1.Pod
		diffs     []string
	}{
		{name: "both nil"},
		{
			name:  "want nil",
			got:   p,
			diffs: []string{`pod: want <absent>, got {"metadata":{},"spec":{"containers":[{"image":"i","name":"c","resources":{}}]}}`},
		},
		{
			name:  "got nil",
			want:  p,
			diffs: []string{`pod: want {"metadata":{},"spec":{"containers":[{"image":"i","name":"c","resources":{}}]}}, got <absent>`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.diffs, strs(Pods(tt.want, tt.got, Options{}))); diff != "" {
				t.Errorf("differences (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMismatchError(t *testing.T) {
	item := func(name string) map[string]any { return map[string]any{"name": name} }
	order := valuediff.Values("spec.containers", []any{item("A"), item("B")}, []any{item("B"), item("A")})
	if len(order) != 1 || !order[0].Order() {
		t.Fatalf("no order difference: %v", order)
	}
	m := &Mismatch{
		Differences: []valuediff.Difference{
			{Path: "spec.a", Want: `"x"`, Got: `"y"`},
			order[0],
		},
		Unified: "--- want\n+++ got\n@@ -1 +1 @@\n-a: x\n+a: y\n",
	}
	want := "spec.a: want \"x\", got \"y\"\nspec.containers: order: want [A B], got [B A]\n\n--- want\n+++ got\n@@ -1 +1 @@\n-a: x\n+a: y"
	if got := m.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
	var none *Mismatch
	if got := none.Error(); got != "" {
		t.Errorf("nil Mismatch: Error() = %q, want empty", got)
	}
}

func TestMismatchGolden(t *testing.T) {
	tests := []struct {
		name string
		want func(*corev1.Pod)
		got  func(*corev1.Pod)
	}{
		{
			// The example of the harness specification.
			name: "env-value",
			got: func(p *corev1.Pod) {
				addServerItems(p)
				p.Spec.NodeName = "node-1"
				(*env(p))[0].Value = "6380"
			},
		},
		{
			name: "missing-and-extra",
			want: func(p *corev1.Pod) {
				p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{
					Name:         "secret-volume",
					VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "db"}},
				})
			},
			got: func(p *corev1.Pod) {
				addServerItems(p)
				*env(p) = append((*env(p))[:1], corev1.EnvVar{Name: "REDIS", Value: "on"})
			},
		},
		{
			name: "annotations-labels-and-order",
			got: func(p *corev1.Pod) {
				addServerItems(p)
				p.Labels["role"] = "backend"
				p.Annotations = map[string]string{
					prefix + "podpreset-other":                         "42",
					"kubectl.kubernetes.io/last-applied-configuration": "{}",
				}
				e := *env(p)
				e[0], e[1] = e[1], e[0]
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got := parsePod(t, basePod), parsePod(t, basePod)
			if tt.want != nil {
				tt.want(want)
			}
			if tt.got != nil {
				tt.got(got)
			}
			m := Pods(want, got, Options{AnnotationPrefix: prefix})
			if m == nil {
				t.Fatal("Pods() = nil, want a mismatch")
			}
			checkGolden(t, filepath.Join("testdata", tt.name+".golden"), m.Error()+"\n")
		})
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("unable to update the golden file: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("unable to read the golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-golden +got):\n%s", path, diff)
	}
}

func TestNormalize(t *testing.T) {
	p := parsePod(t, basePod)
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
	p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: "debug", Image: "busybox",
	}}}
	want := p.DeepCopy()
	custom := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule}
	want.Spec.Tolerations = []corev1.Toleration{custom}

	in := p.DeepCopy()
	addServerItems(in)
	in.Spec.EphemeralContainers[0].VolumeMounts = []corev1.VolumeMount{tokenMount}
	in.Spec.Tolerations = append([]corev1.Toleration{custom}, in.Spec.Tolerations...)
	before := in.DeepCopy()

	got := Normalize(in)

	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Normalize() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, in); diff != "" {
		t.Errorf("Normalize modified its argument (-before +after):\n%s", diff)
	}
	if got.Spec.InitContainers[0].VolumeMounts != nil {
		t.Errorf("init container mounts = %#v, want nil", got.Spec.InitContainers[0].VolumeMounts)
	}
	if Normalize(nil) != nil {
		t.Error("Normalize(nil) != nil")
	}
}

func TestNormalizeOnlyTokenVolume(t *testing.T) {
	p := &corev1.Pod{Spec: corev1.PodSpec{
		Containers:  []corev1.Container{{Name: "c", VolumeMounts: []corev1.VolumeMount{tokenMount}}},
		Volumes:     []corev1.Volume{tokenVolume},
		Tolerations: defaultTolerations(),
	}}
	got := Normalize(p)
	if got.Spec.Volumes != nil || got.Spec.Containers[0].VolumeMounts != nil || got.Spec.Tolerations != nil {
		t.Errorf("Normalize() left empty lists non-nil: volumes=%#v mounts=%#v tolerations=%#v",
			got.Spec.Volumes, got.Spec.Containers[0].VolumeMounts, got.Spec.Tolerations)
	}
}
