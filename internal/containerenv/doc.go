// Package containerenv computes the environment a container sees, as the
// kubelet makes it (pkg/kubelet/kubelet_pods.go, makeEnvironmentVariables,
// and pkg/kubelet/envvars), from the pod, the ConfigMaps and Secrets it
// refers to, and the Services of its namespace. Resolve is a pure function;
// FetchSources, beside it, reads its inputs with a client.
//
// The rules, in the kubelet's order:
//
//  1. envFrom sources, in order: every key of a ConfigMap's data (not
//     binaryData) or a Secret's data, with the prefix prepended. Kubelets
//     before 1.34 skipped keys that were not C identifiers (with an
//     InvalidEnvironmentVariableNames event); the pinned 1.37 kubelet keeps
//     every key, as env names may now be any printable ASCII but '=', which
//     every valid ConfigMap or Secret key is. This package does the same and
//     skips, and reports, only keys that are invalid even so (possible in
//     objects read from files, never in stored ones). A missing source is
//     skipped when optional, else the container cannot start.
//  2. env, in order, each overriding what came before under its name: a
//     value has its $(VAR) references expanded against what is defined so
//     far and then the service variables; $$ is a literal $; a reference to
//     an unknown variable, or an unclosed $(, is left as written. A value
//     from valueFrom: configMapKeyRef and secretKeyRef (missing and optional:
//     the variable is not set; missing and not optional: the container
//     cannot start), and fieldRef for metadata.name, metadata.namespace,
//     metadata.uid, metadata.labels['…'], metadata.annotations['…'],
//     spec.nodeName, spec.serviceAccountName, status.podIP(s) and
//     status.hostIP(s) (empty, and reported as unknown, when the pod has
//     none yet). An empty value with no valueFrom sets the variable to "".
//  3. The service variables that the container did not define itself: for
//     every Service of the pod's namespace with a cluster IP (headless and
//     ExternalName Services have none) when enableServiceLinks is not false,
//     and always for the master Services (the "kubernetes" Service of the
//     default namespace): <NAME>_SERVICE_HOST, <NAME>_SERVICE_PORT (the first
//     port), <NAME>_SERVICE_PORT_<PORTNAME> for each named port, <NAME>_PORT
//     (the first port as proto://ip:port), and per port
//     <NAME>_PORT_<port>_<PROTO> with its _PROTO, _PORT and _ADDR variants;
//     NAME is the Service name upper-cased with '-' turned into '_'.
//
// Not simulated: resourceFieldRef (it needs the node's allocatable
// resources; such a variable is reported as unknown), fileKeyRef, and the
// InvalidEnvironmentVariableNames event (the skipped keys are returned).
//
// Values that come from a Secret, directly or through a $(VAR) reference,
// are marked Secret so that callers can mask them.
package containerenv
