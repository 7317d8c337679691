package defaults

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
)

// Preset returns a deep copy of the preset whose env, envFrom, volumes and volumeMounts carry the defaults
// that the API server (Kubernetes 1.37, k8s.io/kubernetes/pkg/apis/core/v1/defaults.go) applies to the same fields of a pod.
//
// The API server defaults a pod when it decodes the request, before mutating
// admission webhooks see it, and again when it decodes a webhook's patched
// pod; a PodPreset stored as a custom resource is never defaulted. The merge
// engine compares and injects the defaulted items, so that a preset item
// written like the pod's own item is identical to it (R3.4) and so that a pod
// the webhook already mutated is left as it is (R3.8).
//
// The defaults reproduced are those SetObjectDefaults_Pod (in
// zz_generated.defaults.go: the handwritten SetDefaults_* functions and the
// declarative +default tags of k8s.io/api/core/v1) applies, as of Kubernetes
// 1.37, to env, envFrom, volumes and volumeMounts. For env:
//
//   - valueFrom.fieldRef.apiVersion "v1" when empty;
//   - valueFrom.fileKeyRef.optional false when nil.
//
// For volumes:
//
//   - a volume with no source set becomes emptyDir: {};
//   - image.pullPolicy, when empty, is Always if the reference's tag is
//     "latest" (or it has neither tag nor digest) and IfNotPresent otherwise,
//     including for references that cannot be parsed (the ImageVolume
//     feature gate is GA and locked on since 1.36);
//   - hostPath.type "" (HostPathUnset) when nil;
//   - secret, configMap, downwardAPI and projected defaultMode 0644 (420) when nil;
//   - downwardAPI items and projected downwardAPI items: fieldRef.apiVersion
//     "v1" when empty;
//   - projected serviceAccountToken.expirationSeconds 3600 when nil;
//   - iscsi.iscsiInterface "default";
//   - rbd.pool "rbd", rbd.user "admin", rbd.keyring "/etc/ceph/keyring";
//   - azureDisk.cachingMode ReadWrite, fsType "ext4", readOnly false and
//     kind Shared, each when nil;
//   - scaleIO.storageMode "ThinProvisioned", scaleIO.fsType "xfs";
//   - ephemeral.volumeClaimTemplate.spec.volumeMode Filesystem when nil, and
//     the quantities of its resources.limits and resources.requests rounded
//     up to milli scale (SetDefaults_ResourceList).
//
// Kubernetes defines no default for envFrom or volumeMounts.
//
// Deliberately left out: every other default of SetObjectDefaults_Pod, as it
// concerns fields a preset cannot carry (containers, probes, ports,
// resources of containers, pod spec and status). Nothing feature-gated is
// left out: the only feature gate consulted on these fields is ImageVolume,
// which cannot be disabled in 1.37. Changes that the pod strategy
// (PrepareForCreate) makes after admission are not defaults and are not
// reproduced either.
//
// A nil preset yields nil. The input is never mutated.
func Preset(pp *v1alpha1.PodPreset) *v1alpha1.PodPreset {
	if pp == nil {
		return nil
	}
	out := pp.DeepCopy()
	for i := range out.Spec.Env {
		defaultEnvVar(&out.Spec.Env[i])
	}
	for i := range out.Spec.Volumes {
		defaultVolume(&out.Spec.Volumes[i])
	}
	// EnvFrom and VolumeMounts have no defaults in core/v1.
	return out
}

// Pod returns a deep copy of the pod whose volumes and container env vars
// (init, regular and ephemeral containers) carry the same defaults as Preset
// gives a preset. Callers without an API server (the offline backend, the
// preview) use it so that a pod's own items compare with a preset's as they
// would after the API server's defaulting. Other pod defaults are not applied.
func Pod(pod *corev1.Pod) *corev1.Pod {
	if pod == nil {
		return nil
	}
	out := pod.DeepCopy()
	for i := range out.Spec.Volumes {
		defaultVolume(&out.Spec.Volumes[i])
	}
	for _, list := range [][]corev1.Container{out.Spec.InitContainers, out.Spec.Containers} {
		for c := range list {
			for i := range list[c].Env {
				defaultEnvVar(&list[c].Env[i])
			}
		}
	}
	for c := range out.Spec.EphemeralContainers {
		for i := range out.Spec.EphemeralContainers[c].Env {
			defaultEnvVar(&out.Spec.EphemeralContainers[c].Env[i])
		}
	}
	return out
}

// Default values that k8s.io/api/core/v1 declares only in +default tags, without a constant.
const (
	defaultFieldRefAPIVersion = "v1"
	defaultISCSIInterface     = "default"
	defaultRBDPool            = "rbd"
	defaultRBDUser            = "admin"
	defaultRBDKeyring         = "/etc/ceph/keyring"
	defaultAzureDiskFSType    = "ext4"
	defaultScaleIOStorageMode = "ThinProvisioned"
	defaultScaleIOFSType      = "xfs"
	// defaultTokenExpirationSeconds is one hour.
	defaultTokenExpirationSeconds int64 = 3600
	// milliScale is the scale resource quantities are rounded up to.
	milliScale = -3
)

func defaultEnvVar(e *corev1.EnvVar) {
	if e.ValueFrom == nil {
		return
	}
	if e.ValueFrom.FieldRef != nil {
		defaultObjectFieldSelector(e.ValueFrom.FieldRef)
	}
	if e.ValueFrom.FileKeyRef != nil && e.ValueFrom.FileKeyRef.Optional == nil {
		e.ValueFrom.FileKeyRef.Optional = ptrTo(false)
	}
}

func defaultObjectFieldSelector(s *corev1.ObjectFieldSelector) {
	if s.APIVersion == "" {
		s.APIVersion = defaultFieldRefAPIVersion
	}
}

func defaultDownwardAPIItems(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		if items[i].FieldRef != nil {
			defaultObjectFieldSelector(items[i].FieldRef)
		}
	}
}

func defaultVolume(v *corev1.Volume) {
	// VolumeSource has only pointer fields, so the zero value is exactly
	// "all pointer fields nil" (ptr.AllPtrFieldsNil in SetDefaults_Volume).
	if v.VolumeSource == (corev1.VolumeSource{}) {
		v.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	s := &v.VolumeSource

	if s.Image != nil && s.Image.PullPolicy == "" {
		s.Image.PullPolicy = imagePullPolicy(s.Image.Reference)
	}
	if s.HostPath != nil && s.HostPath.Type == nil {
		s.HostPath.Type = ptrTo(corev1.HostPathUnset)
	}
	if s.Secret != nil && s.Secret.DefaultMode == nil {
		s.Secret.DefaultMode = ptrTo(corev1.SecretVolumeSourceDefaultMode)
	}
	if s.ConfigMap != nil && s.ConfigMap.DefaultMode == nil {
		s.ConfigMap.DefaultMode = ptrTo(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if s.DownwardAPI != nil {
		if s.DownwardAPI.DefaultMode == nil {
			s.DownwardAPI.DefaultMode = ptrTo(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		defaultDownwardAPIItems(s.DownwardAPI.Items)
	}
	if s.Projected != nil {
		if s.Projected.DefaultMode == nil {
			s.Projected.DefaultMode = ptrTo(corev1.ProjectedVolumeSourceDefaultMode)
		}
		for i := range s.Projected.Sources {
			src := &s.Projected.Sources[i]
			if src.DownwardAPI != nil {
				defaultDownwardAPIItems(src.DownwardAPI.Items)
			}
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.ExpirationSeconds == nil {
				src.ServiceAccountToken.ExpirationSeconds = ptrTo(defaultTokenExpirationSeconds)
			}
		}
	}
	if s.ISCSI != nil && s.ISCSI.ISCSIInterface == "" {
		s.ISCSI.ISCSIInterface = defaultISCSIInterface
	}
	if s.RBD != nil {
		if s.RBD.RBDPool == "" {
			s.RBD.RBDPool = defaultRBDPool
		}
		if s.RBD.RadosUser == "" {
			s.RBD.RadosUser = defaultRBDUser
		}
		if s.RBD.Keyring == "" {
			s.RBD.Keyring = defaultRBDKeyring
		}
	}
	if s.AzureDisk != nil {
		if s.AzureDisk.CachingMode == nil {
			s.AzureDisk.CachingMode = ptrTo(corev1.AzureDataDiskCachingReadWrite)
		}
		if s.AzureDisk.FSType == nil {
			s.AzureDisk.FSType = ptrTo(defaultAzureDiskFSType)
		}
		if s.AzureDisk.ReadOnly == nil {
			s.AzureDisk.ReadOnly = ptrTo(false)
		}
		if s.AzureDisk.Kind == nil {
			s.AzureDisk.Kind = ptrTo(corev1.AzureSharedBlobDisk)
		}
	}
	if s.ScaleIO != nil {
		if s.ScaleIO.StorageMode == "" {
			s.ScaleIO.StorageMode = defaultScaleIOStorageMode
		}
		if s.ScaleIO.FSType == "" {
			s.ScaleIO.FSType = defaultScaleIOFSType
		}
	}
	if s.Ephemeral != nil && s.Ephemeral.VolumeClaimTemplate != nil {
		spec := &s.Ephemeral.VolumeClaimTemplate.Spec
		if spec.VolumeMode == nil {
			spec.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
		}
		roundUpToMilli(spec.Resources.Limits)
		roundUpToMilli(spec.Resources.Requests)
	}
}

// roundUpToMilli rounds every quantity up to milli scale, as
// SetDefaults_ResourceList does.
func roundUpToMilli(rl corev1.ResourceList) {
	for name, q := range rl {
		q.RoundUp(milliScale)
		rl[name] = q
	}
}

func ptrTo[T any](v T) *T {
	return &v
}

// imagePullPolicy is the default pull policy of an image volume
// (SetDefaults_Volume): Always if the reference's tag is "latest", which
// includes a reference with neither tag nor digest, and IfNotPresent
// otherwise, including when the reference cannot be parsed.
func imagePullPolicy(reference string) corev1.PullPolicy {
	if tag, ok := imageTag(reference); ok && tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// The grammar of image references of github.com/distribution/reference
// (v0.6.0, as used by k8s.io/kubernetes/pkg/util/parsers.ParseImageName),
// restated here because that module is not a dependency of this one.
var (
	imageIdentifierRegexp = regexp.MustCompile(`^[a-f0-9]{64}$`)
	imageReferenceRegexp  = func() *regexp.Regexp {
		const (
			alphanumeric  = `[a-z0-9]+`
			separator     = `(?:[._]|__|[-]+)`
			domainComp    = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
			domainName    = domainComp + `(?:\.` + domainComp + `)*`
			ipv6          = `\[(?:[a-fA-F0-9:]+)\]`
			domainAndPort = `(?:` + domainName + `|` + ipv6 + `)(?::[0-9]+)?`
			pathComponent = alphanumeric + `(?:` + separator + alphanumeric + `)*`
			remoteName    = pathComponent + `(?:/` + pathComponent + `)*`
			tag           = `[\w][\w.-]{0,127}`
			digest        = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
		)
		// Submatches: 1 domain (optional), 2 path, 3 tag, 4 digest.
		return regexp.MustCompile(`^(?:(` + domainAndPort + `)/)?(` + remoteName + `)(?::(` + tag + `))?(?:@(` + digest + `))?$`)
	}()
	// imageDigestRegexps are the digest algorithms ParseImageName accepts
	// (those of github.com/opencontainers/go-digest whose hash is linked in)
	// and the exact form of their hex-encoded value.
	imageDigestRegexps = map[string]*regexp.Regexp{
		"sha256": regexp.MustCompile(`^[a-f0-9]{64}$`),
		"sha384": regexp.MustCompile(`^[a-f0-9]{96}$`),
		"sha512": regexp.MustCompile(`^[a-f0-9]{128}$`),
	}
)

// maxImagePathLength is the longest repository path (without domain) of a valid reference.
const maxImagePathLength = 255

// imageTag returns the tag ParseImageName finds in an image reference:
// "latest" when the reference has neither tag nor digest, "" when it has only
// a digest; ok is false when the reference is invalid.
func imageTag(reference string) (tag string, ok bool) {
	if imageIdentifierRegexp.MatchString(reference) {
		return "", false
	}

	// Normalize to a fully qualified name, as ParseNormalizedNamed does.
	domain, remainder := "docker.io", ""
	first, rest, found := strings.Cut(reference, "/")
	switch {
	case !found:
		remainder = reference
	case first == "localhost",
		strings.ContainsAny(first, ".:"),
		strings.ToLower(first) != first:
		domain, remainder = first, rest
	case first == "index.docker.io":
		remainder = rest
	default:
		remainder = reference
	}
	if domain == "docker.io" && !strings.Contains(remainder, "/") {
		remainder = "library/" + remainder
	}
	remote, _, _ := strings.Cut(remainder, ":")
	if strings.ToLower(remote) != remote {
		return "", false
	}

	m := imageReferenceRegexp.FindStringSubmatch(domain + "/" + remainder)
	if m == nil || len(m[2]) > maxImagePathLength {
		return "", false
	}
	tag, digest := m[3], m[4]
	if digest != "" {
		algorithm, encoded, _ := strings.Cut(digest, ":")
		re, known := imageDigestRegexps[algorithm]
		if !known || !re.MatchString(encoded) {
			return "", false
		}
	}
	if tag == "" && digest == "" {
		tag = "latest"
	}
	return tag, true
}
