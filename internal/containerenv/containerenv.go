package containerenv

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Sources are the objects a container's environment is resolved against,
// all from the pod's namespace except MasterServices.
type Sources struct {
	ConfigMaps map[string]*corev1.ConfigMap
	Secrets    map[string]*corev1.Secret
	// Services are the Services of the pod's namespace.
	Services []corev1.Service
	// MasterServices are the Services every pod gets variables for, even
	// with enableServiceLinks false: the "kubernetes" Service of the
	// default namespace.
	MasterServices []corev1.Service
}

// Var is one variable of the environment.
type Var struct {
	Name, Value string
	// Secret is set when the value holds data from a Secret.
	Secret bool
	// From says where the value came from: "env", "configMap app-config",
	// "secret db", "service redis-master", "fieldRef metadata.name".
	From string
}

// SkippedKey is an envFrom key that is not a valid variable name.
type SkippedKey struct {
	// Source is "configMap <name>" or "secret <name>".
	Source string
	// Key is the key with the prefix prepended.
	Key string
}

// Environment is what a container sees.
type Environment struct {
	// Vars are sorted by name.
	Vars []Var
	// Skipped lists envFrom keys left out as invalid names.
	Skipped []SkippedKey
	// Unknown lists variables whose value the pod cannot give yet (a
	// status.podIP before the pod has one) or that are not simulated
	// (resourceFieldRef); they are set to "".
	Unknown []string
}

// Lookup returns the variable of that name.
func (e Environment) Lookup(name string) (Var, bool) {
	i := sort.Search(len(e.Vars), func(i int) bool { return e.Vars[i].Name >= name })
	if i < len(e.Vars) && e.Vars[i].Name == name {
		return e.Vars[i], true
	}
	return Var{}, false
}

// ConfigError is why the kubelet cannot make a container's environment:
// a ConfigMap, Secret or key that is referred to without optional is
// missing. The kubelet then reports the container as waiting with the
// reason CreateContainerConfigError and this message.
type ConfigError struct{ Message string }

func (e *ConfigError) Error() string { return e.Message }

// Reason is the container state reason the kubelet reports.
const Reason = "CreateContainerConfigError"

// Resolve returns the environment of the container (one of pod's
// containers or init containers) given sources. The error, if any, is a
// *ConfigError.
func Resolve(pod *corev1.Pod, c *corev1.Container, src Sources) (Environment, error) {
	env := Environment{}
	defined := map[string]Var{}

	for _, ef := range c.EnvFrom {
		var (
			source string
			data   map[string]string
			secret bool
		)
		switch {
		case ef.ConfigMapRef != nil:
			source = "configMap " + ef.ConfigMapRef.Name
			cm, ok := src.ConfigMaps[ef.ConfigMapRef.Name]
			if !ok {
				if isTrue(ef.ConfigMapRef.Optional) {
					continue
				}
				return Environment{}, &ConfigError{Message: fmt.Sprintf("configmap %q not found", ef.ConfigMapRef.Name)}
			}
			data = cm.Data
		case ef.SecretRef != nil:
			source, secret = "secret "+ef.SecretRef.Name, true
			s, ok := src.Secrets[ef.SecretRef.Name]
			if !ok {
				if isTrue(ef.SecretRef.Optional) {
					continue
				}
				return Environment{}, &ConfigError{Message: fmt.Sprintf("secret %q not found", ef.SecretRef.Name)}
			}
			data = secretData(s)
		default:
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(data)) {
			name := ef.Prefix + k
			if !ValidName(name) {
				env.Skipped = append(env.Skipped, SkippedKey{Source: source, Key: name})
				continue
			}
			defined[name] = Var{Name: name, Value: data[k], Secret: secret, From: source}
		}
	}

	services := serviceVars(pod, src)
	for _, e := range c.Env {
		v := Var{Name: e.Name, From: "env"}
		switch {
		case e.Value != "":
			v.Value, v.Secret = expand(e.Value, defined, services)
		case e.ValueFrom != nil:
			v.From = ""
			value, set, err := valueFrom(pod, e.ValueFrom, src, &v)
			if err != nil {
				return Environment{}, err
			}
			if !set {
				if v.From == "" {
					env.Unknown = append(env.Unknown, e.Name)
				} else {
					continue // optional and missing: not set
				}
			}
			v.Value = value
			if !set {
				v.From = "unknown"
			}
		}
		defined[e.Name] = v
	}

	for name, v := range services {
		if _, ok := defined[name]; !ok {
			defined[name] = v
		}
	}
	for _, v := range defined {
		env.Vars = append(env.Vars, v)
	}
	sort.Slice(env.Vars, func(i, j int) bool { return env.Vars[i].Name < env.Vars[j].Name })
	sort.Strings(env.Unknown)
	return env, nil
}

// valueFrom resolves a valueFrom. set is false when the variable is not to
// be set (an optional source that is missing, v.From then set) or its value
// is unknown (v.From then empty).
func valueFrom(pod *corev1.Pod, from *corev1.EnvVarSource, src Sources, v *Var) (value string, set bool, err error) {
	switch {
	case from.ConfigMapKeyRef != nil:
		ref := from.ConfigMapKeyRef
		v.From = "configMap " + ref.Name
		cm, exists := src.ConfigMaps[ref.Name]
		var data map[string]string
		if exists {
			data = cm.Data
		}
		return keyRef("ConfigMap", pod.Namespace, ref.Name, ref.Key, ref.Optional, data, exists)
	case from.SecretKeyRef != nil:
		ref := from.SecretKeyRef
		v.From, v.Secret = "secret "+ref.Name, true
		s, exists := src.Secrets[ref.Name]
		var data map[string]string
		if exists {
			data = secretData(s)
		}
		return keyRef("Secret", pod.Namespace, ref.Name, ref.Key, ref.Optional, data, exists)
	case from.FieldRef != nil:
		value, known := fieldValue(pod, from.FieldRef.FieldPath)
		if !known {
			return "", false, nil
		}
		v.From = "fieldRef " + from.FieldRef.FieldPath
		return value, true, nil
	}
	// resourceFieldRef, fileKeyRef: not simulated.
	return "", false, nil
}

// keyRef looks a key up in the data of a ConfigMap or Secret (kind) that
// exists or not, as the kubelet does for configMapKeyRef and secretKeyRef:
// a missing object or key leaves the variable unset when optional, and
// otherwise keeps the container from starting, with the kubelet's message.
func keyRef(kind, namespace, name, key string, optional *bool, data map[string]string, exists bool) (value string, set bool, err error) {
	if !exists {
		if isTrue(optional) {
			return "", false, nil
		}
		return "", false, &ConfigError{Message: fmt.Sprintf("%s %q not found", strings.ToLower(kind), name)}
	}
	value, ok := data[key]
	if !ok {
		if isTrue(optional) {
			return "", false, nil
		}
		return "", false, &ConfigError{Message: fmt.Sprintf("couldn't find key %s in %s %s/%s", key, kind, namespace, name)}
	}
	return value, true, nil
}

// fieldValue returns a downward API field of the pod; known is false when
// the pod has no value for it yet or the field is not simulated.
func fieldValue(pod *corev1.Pod, path string) (value string, known bool) {
	if key, ok := subscript(path, "metadata.labels"); ok {
		return pod.Labels[key], true
	}
	if key, ok := subscript(path, "metadata.annotations"); ok {
		return pod.Annotations[key], true
	}
	switch path {
	case "metadata.name":
		return pod.Name, true
	case "metadata.namespace":
		return pod.Namespace, true
	case "metadata.uid":
		return string(pod.UID), pod.UID != ""
	case "spec.nodeName":
		return pod.Spec.NodeName, pod.Spec.NodeName != ""
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, true
	case "status.podIP":
		return pod.Status.PodIP, pod.Status.PodIP != ""
	case "status.podIPs":
		ips := make([]string, len(pod.Status.PodIPs))
		for i, ip := range pod.Status.PodIPs {
			ips[i] = ip.IP
		}
		return strings.Join(ips, ","), len(ips) > 0
	case "status.hostIP":
		return pod.Status.HostIP, pod.Status.HostIP != ""
	case "status.hostIPs":
		ips := make([]string, len(pod.Status.HostIPs))
		for i, ip := range pod.Status.HostIPs {
			ips[i] = ip.IP
		}
		return strings.Join(ips, ","), len(ips) > 0
	}
	return "", false
}

// subscript reads metadata.labels['key'] (or "key" quotes).
func subscript(path, field string) (string, bool) {
	rest, ok := strings.CutPrefix(path, field+"[")
	if !ok || !strings.HasSuffix(rest, "]") || len(rest) < 3 {
		return "", false
	}
	rest = rest[:len(rest)-1]
	q := rest[0]
	if (q != '\'' && q != '"') || rest[len(rest)-1] != q {
		return "", false
	}
	return rest[1 : len(rest)-1], true
}

// expand replaces $(VAR) references by the variables defined so far, then
// the service variables; $$ is a literal $. Unresolvable references and an
// unclosed $( stay as written. secret reports whether a Secret's value was
// substituted.
func expand(input string, defined, services map[string]Var) (out string, secret bool) {
	var b strings.Builder
	for i := 0; i < len(input); i++ {
		if input[i] != '$' || i+1 == len(input) {
			b.WriteByte(input[i])
			continue
		}
		switch next := input[i+1]; next {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(input[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := input[i+2 : i+2+end]
			if v, ok := defined[name]; ok {
				b.WriteString(v.Value)
				secret = secret || v.Secret
			} else if v, ok := services[name]; ok {
				b.WriteString(v.Value)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
			b.WriteByte(next)
			i++
		}
	}
	return b.String(), secret
}

// serviceVars returns the service link variables of the master Services
// and, unless enableServiceLinks is false, of the pod's namespace, whose
// Services win over a master Service of the same name (as in the kubelet,
// where a namespace's own "kubernetes" Service replaces the default one).
func serviceVars(pod *corev1.Pod, src Sources) map[string]Var {
	byName := map[string]*corev1.Service{}
	for i := range src.MasterServices {
		byName[src.MasterServices[i].Name] = &src.MasterServices[i]
	}
	if pod.Spec.EnableServiceLinks == nil || *pod.Spec.EnableServiceLinks {
		for i := range src.Services {
			byName[src.Services[i].Name] = &src.Services[i]
		}
	}
	out := map[string]Var{}
	for _, s := range byName {
		for _, v := range ServiceVars(s) {
			out[v.Name] = v
		}
	}
	return out
}

// ServiceVars returns the variables the kubelet makes for one Service; none
// for a Service without a cluster IP or without ports.
func ServiceVars(s *corev1.Service) []Var {
	ip := s.Spec.ClusterIP
	if ip == "" || ip == corev1.ClusterIPNone || len(s.Spec.Ports) == 0 {
		return nil
	}
	prefix := VarName(s.Name)
	from := "service " + s.Name
	vars := []Var{
		{Name: prefix + "_SERVICE_HOST", Value: ip, From: from},
		{Name: prefix + "_SERVICE_PORT", Value: strconv.Itoa(int(s.Spec.Ports[0].Port)), From: from},
	}
	for _, p := range s.Spec.Ports {
		if p.Name != "" {
			vars = append(vars, Var{Name: prefix + "_SERVICE_PORT_" + VarName(p.Name), Value: strconv.Itoa(int(p.Port)), From: from})
		}
	}
	for i, p := range s.Spec.Ports {
		proto := string(p.Protocol)
		if proto == "" {
			proto = string(corev1.ProtocolTCP)
		}
		port := strconv.Itoa(int(p.Port))
		url := strings.ToLower(proto) + "://" + net.JoinHostPort(ip, port)
		if i == 0 {
			vars = append(vars, Var{Name: prefix + "_PORT", Value: url, From: from})
		}
		pp := prefix + "_PORT_" + port + "_" + strings.ToUpper(proto)
		vars = append(vars,
			Var{Name: pp, Value: url, From: from},
			Var{Name: pp + "_PROTO", Value: strings.ToLower(proto), From: from},
			Var{Name: pp + "_PORT", Value: port, From: from},
			Var{Name: pp + "_ADDR", Value: ip, From: from},
		)
	}
	return vars
}

// VarName is a Service or port name as a variable name: upper case, '-'
// turned into '_'.
func VarName(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// ValidName reports whether name is a valid environment variable name as
// Kubernetes validates them (relaxed since 1.34: printable ASCII without
// '=', not empty), by apimachinery's own check.
func ValidName(name string) bool {
	return len(validation.IsRelaxedEnvVarName(name)) == 0
}

func secretData(s *corev1.Secret) map[string]string {
	out := make(map[string]string, len(s.Data)+len(s.StringData))
	for k, v := range s.Data {
		out[k] = string(v)
	}
	// stringData is write-only on a real API server, which merges it into
	// data; a Secret read from a file may still carry it.
	for k, v := range s.StringData {
		out[k] = v
	}
	return out
}

func isTrue(b *bool) bool { return b != nil && *b }
