package containerenv

import (
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
}

func secret(name string, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

func service(name, ip string, ports ...corev1.ServicePort) corev1.Service {
	return corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: ports}}
}

func cmKey(name, key string, optional bool) *corev1.EnvVarSource {
	src := &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}}
	if optional {
		src.ConfigMapKeyRef.Optional = ptr(true)
	}
	return src
}

func secretKey(name, key string, optional bool) *corev1.EnvVarSource {
	src := &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: key}}
	if optional {
		src.SecretKeyRef.Optional = ptr(true)
	}
	return src
}

func field(path string) *corev1.EnvVarSource {
	return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}
}

func fromCM(prefix, name string, optional bool) corev1.EnvFromSource {
	e := corev1.EnvFromSource{Prefix: prefix, ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
	if optional {
		e.ConfigMapRef.Optional = ptr(true)
	}
	return e
}

func fromSecret(prefix, name string, optional bool) corev1.EnvFromSource {
	e := corev1.EnvFromSource{Prefix: prefix, SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
	if optional {
		e.SecretRef.Optional = ptr(true)
	}
	return e
}

func pod(c corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "uid-1",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"team": "a"}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{c}, NodeName: "node-1", ServiceAccountName: "default"},
		Status: corev1.PodStatus{PodIP: "10.1.0.7", PodIPs: []corev1.PodIP{{IP: "10.1.0.7"}, {IP: "fd00::7"}}, HostIP: "172.18.0.2"},
	}
}

// values returns the environment as a name → value map.
func values(e Environment) map[string]string {
	out := map[string]string{}
	for _, v := range e.Vars {
		out[v.Name] = v.Value
	}
	return out
}

// TestResolve has a named case for every rule of the package doc.
func TestResolve(t *testing.T) {
	redis := service("redis-master", "10.0.0.11", corev1.ServicePort{Port: 6379})
	cases := []struct {
		name    string
		c       corev1.Container
		pod     func(*corev1.Pod)
		src     Sources
		want    map[string]string
		secret  []string // names whose value is marked Secret
		skipped []SkippedKey
		unknown []string
		err     string
	}{
		{
			name: "literal values",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "EMPTY"}}},
			want: map[string]string{"A": "1", "EMPTY": ""},
		},
		{
			name: "envFrom ConfigMap: every data key, binaryData ignored",
			c:    corev1.Container{EnvFrom: []corev1.EnvFromSource{fromCM("", "cfg", false)}},
			src: Sources{ConfigMaps: map[string]*corev1.ConfigMap{"cfg": {
				ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"a": "1", "my.key": "2"},
				BinaryData: map[string][]byte{"bin": []byte("x")}}}},
			want: map[string]string{"a": "1", "my.key": "2"},
		},
		{
			name:   "envFrom Secret: values decoded and marked secret",
			c:      corev1.Container{EnvFrom: []corev1.EnvFromSource{fromSecret("", "db", false)}},
			src:    Sources{Secrets: map[string]*corev1.Secret{"db": secret("db", map[string]string{"password": "s3cr3t"})}},
			want:   map[string]string{"password": "s3cr3t"},
			secret: []string{"password"},
		},
		{
			name: "envFrom prefix is prepended",
			c:    corev1.Container{EnvFrom: []corev1.EnvFromSource{fromCM("DB_", "cfg", false)}},
			src:  Sources{ConfigMaps: map[string]*corev1.ConfigMap{"cfg": configMap("cfg", map[string]string{"HOST": "h"})}},
			want: map[string]string{"DB_HOST": "h"},
		},
		{
			name:    "envFrom key that is no valid name even relaxed is skipped and reported",
			c:       corev1.Container{EnvFrom: []corev1.EnvFromSource{fromCM("", "cfg", false)}},
			src:     Sources{ConfigMaps: map[string]*corev1.ConfigMap{"cfg": configMap("cfg", map[string]string{"a=b": "1", "ok": "2"})}},
			want:    map[string]string{"ok": "2"},
			skipped: []SkippedKey{{Source: "configMap cfg", Key: "a=b"}},
		},
		{
			name: "later envFrom sources override earlier ones",
			c:    corev1.Container{EnvFrom: []corev1.EnvFromSource{fromCM("", "one", false), fromCM("", "two", false)}},
			src: Sources{ConfigMaps: map[string]*corev1.ConfigMap{
				"one": configMap("one", map[string]string{"K": "one"}), "two": configMap("two", map[string]string{"K": "two"})}},
			want: map[string]string{"K": "two"},
		},
		{
			name: "env overrides envFrom",
			c: corev1.Container{EnvFrom: []corev1.EnvFromSource{fromCM("", "cfg", false)},
				Env: []corev1.EnvVar{{Name: "duplicate_key", Value: "FROM_ENV"}}},
			src:  Sources{ConfigMaps: map[string]*corev1.ConfigMap{"cfg": configMap("cfg", map[string]string{"duplicate_key": "FROM_CONFIG_MAP"})}},
			want: map[string]string{"duplicate_key": "FROM_ENV"},
		},
		{
			name: "a later env var overrides an earlier one of the same name",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "A", Value: "2"}}},
			want: map[string]string{"A": "2"},
		},
		{
			name: "missing optional envFrom sources are skipped",
			c:    corev1.Container{EnvFrom: []corev1.EnvFromSource{fromCM("", "nope", true), fromSecret("", "nope", true)}},
			want: map[string]string{},
		},
		{
			name: "missing ConfigMap is a config error",
			c:    corev1.Container{EnvFrom: []corev1.EnvFromSource{fromCM("", "app-config", false)}},
			err:  `configmap "app-config" not found`,
		},
		{
			name: "missing Secret is a config error",
			c:    corev1.Container{EnvFrom: []corev1.EnvFromSource{fromSecret("", "db", false)}},
			err:  `secret "db" not found`,
		},
		{
			name: "expansion of an envFrom variable",
			c: corev1.Container{EnvFrom: []corev1.EnvFromSource{fromCM("", "cfg", false)},
				Env: []corev1.EnvVar{{Name: "expansion", Value: "$(REPLACE_ME)"}}},
			src:  Sources{ConfigMaps: map[string]*corev1.ConfigMap{"cfg": configMap("cfg", map[string]string{"REPLACE_ME": "a value"})}},
			want: map[string]string{"REPLACE_ME": "a value", "expansion": "a value"},
		},
		{
			name: "expansion sees only earlier env vars",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "B", Value: "$(A)-$(C)"}, {Name: "A", Value: "a"}, {Name: "C", Value: "c"}, {Name: "D", Value: "$(A)$(C)"}}},
			want: map[string]string{"A": "a", "B": "$(A)-$(C)", "C": "c", "D": "ac"},
		},
		{
			name: "$$ escapes, unresolvable and unclosed references stay as written",
			c: corev1.Container{Env: []corev1.EnvVar{{Name: "A", Value: "x"},
				{Name: "ESC", Value: "$$(A)"}, {Name: "MISSING", Value: "$(NOPE)"}, {Name: "OPEN", Value: "$(A"},
				{Name: "LONE", Value: "cost: $5 and $"}, {Name: "DOUBLE", Value: "$$$(A)"}}},
			want: map[string]string{"A": "x", "ESC": "$(A)", "MISSING": "$(NOPE)", "OPEN": "$(A", "LONE": "cost: $5 and $", "DOUBLE": "$x"},
		},
		{
			name:   "expansion of a secret value is secret",
			c:      corev1.Container{Env: []corev1.EnvVar{{Name: "PW", ValueFrom: secretKey("db", "password", false)}, {Name: "URL", Value: "postgres://u:$(PW)@db"}}},
			src:    Sources{Secrets: map[string]*corev1.Secret{"db": secret("db", map[string]string{"password": "pw"})}},
			want:   map[string]string{"PW": "pw", "URL": "postgres://u:pw@db"},
			secret: []string{"PW", "URL"},
		},
		{
			name: "configMapKeyRef",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "HOST", ValueFrom: cmKey("cfg", "host", false)}}},
			src:  Sources{ConfigMaps: map[string]*corev1.ConfigMap{"cfg": configMap("cfg", map[string]string{"host": "db"})}},
			want: map[string]string{"HOST": "db"},
		},
		{
			name: "optional configMapKeyRef with a missing key or ConfigMap leaves the variable unset",
			c: corev1.Container{Env: []corev1.EnvVar{{Name: "A", ValueFrom: cmKey("cfg", "nope", true)},
				{Name: "B", ValueFrom: cmKey("missing", "k", true)}}},
			src:  Sources{ConfigMaps: map[string]*corev1.ConfigMap{"cfg": configMap("cfg", nil)}},
			want: map[string]string{},
		},
		{
			name: "missing key of a configMapKeyRef is a config error",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "A", ValueFrom: cmKey("cfg", "nope", false)}}},
			src:  Sources{ConfigMaps: map[string]*corev1.ConfigMap{"cfg": configMap("cfg", nil)}},
			err:  "couldn't find key nope in ConfigMap shop/cfg",
		},
		{
			name:   "secretKeyRef",
			c:      corev1.Container{Env: []corev1.EnvVar{{Name: "PW", ValueFrom: secretKey("db", "password", false)}}},
			src:    Sources{Secrets: map[string]*corev1.Secret{"db": secret("db", map[string]string{"password": "pw"})}},
			want:   map[string]string{"PW": "pw"},
			secret: []string{"PW"},
		},
		{
			name: "missing key of a secretKeyRef is a config error",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "PW", ValueFrom: secretKey("db", "nope", false)}}},
			src:  Sources{Secrets: map[string]*corev1.Secret{"db": secret("db", nil)}},
			err:  "couldn't find key nope in Secret shop/db",
		},
		{
			name: "missing Secret of a secretKeyRef is a config error",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "PW", ValueFrom: secretKey("db", "password", false)}}},
			err:  `secret "db" not found`,
		},
		{
			name: "downward API fields",
			c: corev1.Container{Env: []corev1.EnvVar{
				{Name: "NAME", ValueFrom: field("metadata.name")}, {Name: "NS", ValueFrom: field("metadata.namespace")},
				{Name: "UID", ValueFrom: field("metadata.uid")}, {Name: "APP", ValueFrom: field("metadata.labels['app']")},
				{Name: "NOLABEL", ValueFrom: field("metadata.labels['nope']")}, {Name: "TEAM", ValueFrom: field(`metadata.annotations["team"]`)},
				{Name: "NODE", ValueFrom: field("spec.nodeName")}, {Name: "SA", ValueFrom: field("spec.serviceAccountName")},
				{Name: "IP", ValueFrom: field("status.podIP")}, {Name: "IPS", ValueFrom: field("status.podIPs")},
				{Name: "HOST", ValueFrom: field("status.hostIP")}}},
			want: map[string]string{"NAME": "web", "NS": "shop", "UID": "uid-1", "APP": "web", "NOLABEL": "", "TEAM": "a",
				"NODE": "node-1", "SA": "default", "IP": "10.1.0.7", "IPS": "10.1.0.7,fd00::7", "HOST": "172.18.0.2"},
		},
		{
			name: "unknown downward API fields are empty and reported",
			c: corev1.Container{Env: []corev1.EnvVar{{Name: "IP", ValueFrom: field("status.podIP")}, {Name: "NODE", ValueFrom: field("spec.nodeName")},
				{Name: "CPU", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: "limits.cpu"}}}}},
			pod:     func(p *corev1.Pod) { p.Status = corev1.PodStatus{}; p.Spec.NodeName = "" },
			want:    map[string]string{"IP": "", "NODE": "", "CPU": ""},
			unknown: []string{"CPU", "IP", "NODE"},
		},
		{
			name: "service link variables, first port and per port",
			src: Sources{Services: []corev1.Service{service("redis-master", "10.0.0.11",
				corev1.ServicePort{Name: "redis", Port: 6379}, corev1.ServicePort{Name: "metrics-port", Port: 9121, Protocol: corev1.ProtocolUDP})}},
			want: map[string]string{
				"REDIS_MASTER_SERVICE_HOST": "10.0.0.11", "REDIS_MASTER_SERVICE_PORT": "6379",
				"REDIS_MASTER_SERVICE_PORT_REDIS": "6379", "REDIS_MASTER_SERVICE_PORT_METRICS_PORT": "9121",
				"REDIS_MASTER_PORT":                "tcp://10.0.0.11:6379",
				"REDIS_MASTER_PORT_6379_TCP":       "tcp://10.0.0.11:6379",
				"REDIS_MASTER_PORT_6379_TCP_PROTO": "tcp", "REDIS_MASTER_PORT_6379_TCP_PORT": "6379", "REDIS_MASTER_PORT_6379_TCP_ADDR": "10.0.0.11",
				"REDIS_MASTER_PORT_9121_UDP":       "udp://10.0.0.11:9121",
				"REDIS_MASTER_PORT_9121_UDP_PROTO": "udp", "REDIS_MASTER_PORT_9121_UDP_PORT": "9121", "REDIS_MASTER_PORT_9121_UDP_ADDR": "10.0.0.11",
			},
		},
		{
			name: "service link variables of an IPv6 Service",
			src:  Sources{Services: []corev1.Service{service("db", "fd00::1", corev1.ServicePort{Port: 5432})}},
			want: map[string]string{"DB_SERVICE_HOST": "fd00::1", "DB_SERVICE_PORT": "5432", "DB_PORT": "tcp://[fd00::1]:5432",
				"DB_PORT_5432_TCP": "tcp://[fd00::1]:5432", "DB_PORT_5432_TCP_PROTO": "tcp", "DB_PORT_5432_TCP_PORT": "5432", "DB_PORT_5432_TCP_ADDR": "fd00::1"},
		},
		{
			name: "headless and ExternalName Services give no variables",
			src:  Sources{Services: []corev1.Service{service("headless", "None", corev1.ServicePort{Port: 80}), service("ext", "")}},
			want: map[string]string{},
		},
		{
			name: "enableServiceLinks false: only the master Services",
			pod:  func(p *corev1.Pod) { p.Spec.EnableServiceLinks = ptr(false) },
			src: Sources{Services: []corev1.Service{redis},
				MasterServices: []corev1.Service{service("kubernetes", "10.0.0.1", corev1.ServicePort{Name: "https", Port: 443})}},
			want: map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443", "KUBERNETES_SERVICE_PORT_HTTPS": "443",
				"KUBERNETES_PORT": "tcp://10.0.0.1:443", "KUBERNETES_PORT_443_TCP": "tcp://10.0.0.1:443", "KUBERNETES_PORT_443_TCP_PROTO": "tcp",
				"KUBERNETES_PORT_443_TCP_PORT": "443", "KUBERNETES_PORT_443_TCP_ADDR": "10.0.0.1"},
		},
		{
			name: "a namespace's own Service wins over the master Service of the same name",
			src: Sources{Services: []corev1.Service{service("kubernetes", "10.9.9.9", corev1.ServicePort{Port: 1})},
				MasterServices: []corev1.Service{service("kubernetes", "10.0.0.1", corev1.ServicePort{Port: 443})}},
			want: map[string]string{"KUBERNETES_SERVICE_HOST": "10.9.9.9", "KUBERNETES_SERVICE_PORT": "1", "KUBERNETES_PORT": "tcp://10.9.9.9:1",
				"KUBERNETES_PORT_1_TCP": "tcp://10.9.9.9:1", "KUBERNETES_PORT_1_TCP_PROTO": "tcp", "KUBERNETES_PORT_1_TCP_PORT": "1", "KUBERNETES_PORT_1_TCP_ADDR": "10.9.9.9"},
		},
		{
			name: "variables the container defines win over service variables",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "REDIS_MASTER_SERVICE_HOST", Value: "mine"}}},
			src:  Sources{Services: []corev1.Service{service("redis-master", "10.0.0.11", corev1.ServicePort{Port: 6379})}},
			want: map[string]string{"REDIS_MASTER_SERVICE_HOST": "mine", "REDIS_MASTER_SERVICE_PORT": "6379", "REDIS_MASTER_PORT": "tcp://10.0.0.11:6379",
				"REDIS_MASTER_PORT_6379_TCP": "tcp://10.0.0.11:6379", "REDIS_MASTER_PORT_6379_TCP_PROTO": "tcp", "REDIS_MASTER_PORT_6379_TCP_PORT": "6379",
				"REDIS_MASTER_PORT_6379_TCP_ADDR": "10.0.0.11"},
		},
		{
			name: "expansion falls back to service variables",
			c:    corev1.Container{Env: []corev1.EnvVar{{Name: "REDIS", Value: "$(REDIS_MASTER_SERVICE_HOST):$(REDIS_MASTER_SERVICE_PORT)"}}},
			src:  Sources{Services: []corev1.Service{service("redis-master", "10.0.0.11", corev1.ServicePort{Port: 6379})}},
			want: map[string]string{"REDIS": "10.0.0.11:6379", "REDIS_MASTER_SERVICE_HOST": "10.0.0.11", "REDIS_MASTER_SERVICE_PORT": "6379",
				"REDIS_MASTER_PORT": "tcp://10.0.0.11:6379", "REDIS_MASTER_PORT_6379_TCP": "tcp://10.0.0.11:6379", "REDIS_MASTER_PORT_6379_TCP_PROTO": "tcp",
				"REDIS_MASTER_PORT_6379_TCP_PORT": "6379", "REDIS_MASTER_PORT_6379_TCP_ADDR": "10.0.0.11"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := pod(tc.c)
			if tc.pod != nil {
				tc.pod(p)
			}
			env, err := Resolve(p, &p.Spec.Containers[0], tc.src)
			if tc.err != "" {
				var ce *ConfigError
				if !errors.As(err, &ce) || ce.Message != tc.err {
					t.Fatalf("error %v, want ConfigError %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := values(env); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("environment\n got %v\nwant %v", got, tc.want)
			}
			var secrets []string
			for _, v := range env.Vars {
				if v.Secret {
					secrets = append(secrets, v.Name)
				}
			}
			if !reflect.DeepEqual(secrets, tc.secret) {
				t.Errorf("secret values %v, want %v", secrets, tc.secret)
			}
			if !reflect.DeepEqual(env.Skipped, tc.skipped) {
				t.Errorf("skipped %v, want %v", env.Skipped, tc.skipped)
			}
			if !reflect.DeepEqual(env.Unknown, tc.unknown) {
				t.Errorf("unknown %v, want %v", env.Unknown, tc.unknown)
			}
		})
	}
}
