package fuzz

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// Case is one generated admission: the presets of the pod's namespace, the
// presets of another namespace (which must never apply, R2.2) and the pod.
// Everything is in canonical terms (settings.k8s.io PodPresets, the
// specification's annotation keys); the runner translates it for the
// implementation under test.
type Case struct {
	// Seed regenerates the case with Generate.
	Seed uint64
	// Presets are created in the pod's namespace, Others in another one.
	Presets, Others []*v1alpha1.PodPreset
	// Pod is the pod as submitted. A pod with no name has a generateName.
	Pod *corev1.Pod
	// Owned gives the pod a controller owner (a ConfigMap named OwnerName
	// that the runner creates first), as a controller's pods have.
	Owned bool
	// Copied are presets whose annotation the pod carries at the preset's
	// version (AnnotateCopied), as a pod copied from one they were applied
	// to does (kubectl get -o yaml, edit, create): the version is the
	// stored preset's, known once it is created.
	Copied []string
	// FollowUp, in FollowUpPercent of the cases, is what the case sends
	// once its pod is created: requests the implementation must leave
	// alone.
	FollowUp *FollowUp
	// Recreate, in RecreatePercent of the cases, is the case's history: a
	// preset created again once the pod was created, and the pod created
	// once more.
	Recreate *Recreate
}

// Versions are the presets' resourceVersions by name, for AnnotateCopied.
func Versions(presets []*v1alpha1.PodPreset) map[string]string {
	out := make(map[string]string, len(presets))
	for _, p := range presets {
		out[p.Name] = p.ResourceVersion
	}
	return out
}

// AnnotateCopied gives pod the annotation of each of the case's Copied
// presets at its version in versions (by preset name); a preset without
// one (not stored) is left out.
func (c Case) AnnotateCopied(pod *corev1.Pod, versions map[string]string) {
	for _, name := range c.Copied {
		v, ok := versions[name]
		if !ok {
			continue
		}
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[merge.AnnotationKey(name)] = v
	}
}

// namespaces are the logical namespaces of a case: the pod's (default)
// and its presets'.
func (c Case) namespaces() []string {
	out := []string{"default"}
	for _, p := range slices.Concat(c.Presets, c.Others) {
		if ns := cmp.Or(p.Namespace, "default"); !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// creationOrder is the order a case's presets are created in: the other
// namespace's first, unless it is PeerNamespace, which is named after the
// pod's namespace and so comes after it (as in a scenario written from the
// case, where a namespace is made on first use).
func (c Case) creationOrder() []*v1alpha1.PodPreset {
	if len(c.Others) > 0 && c.Others[0].Namespace == PeerNamespace {
		return slices.Concat(c.Presets, c.Others)
	}
	return slices.Concat(c.Others, c.Presets)
}

// OwnerName is the name of the ConfigMap that owns an Owned case's pod.
const OwnerName = "owner"

// Pools the generator draws keys from: small, so that items collide with
// the pod's and with each other's (R3.4, R4.1) often.
var (
	labelKeys    = []string{"app", "tier", "role", "example.com/team"}
	labelValues  = []string{"web", "db", "a", "b"}
	envNames     = []string{"A", "B", "DB_HOST", "db_host", "PORT", "_x1"}
	volumeNames  = []string{"cache", "data", "v-1"}
	mountPaths   = []string{"/cache", "/data", "/etc/conf", "/var/log/app"}
	objectNames  = []string{"cm-a", "cm-b", "creds"}
	prefixes     = []string{"", "", "P_", "db_"}
	fieldPaths   = []string{"metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels['app']", "metadata.annotations['a']", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP", "status.podIPs"}
	resources    = []string{"limits.cpu", "limits.memory", "requests.cpu", "requests.memory", "limits.ephemeral-storage"}
	excludeVals  = []string{"true", "true", "True", "TRUE", "false", "", "yes"}
	presetNames  = []string{"a", "b", "c", "d", "e", "ab", "b-2"}
	containerIDs = []string{"app", "side", "tools"}
)

// gen draws values from a seeded source: the same seed, the same case.
type gen struct{ r *rand.Rand }

func (g gen) n(max int) int             { return g.r.IntN(max) }
func (g gen) chance(percent int) bool   { return g.r.IntN(100) < percent }
func (g gen) pick(list []string) string { return list[g.r.IntN(len(list))] }
func (g gen) boolPtr() *bool            { b := g.chance(50); return &b }
func (g gen) maybeBool() *bool {
	if g.chance(50) {
		return nil
	}
	return g.boolPtr()
}

// Generate returns the case of a seed.
func Generate(seed uint64) Case {
	g := gen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	c := Case{Seed: seed}
	names := g.r.Perm(len(presetNames))
	count := 1 + g.n(4)
	for i := 0; i < count; i++ {
		c.Presets = append(c.Presets, g.preset(presetNames[names[i]], "default"))
	}
	if g.chance(25) {
		c.Others = append(c.Others, g.preset(presetNames[names[count]], "other"))
	}
	if len(c.Presets) > 1 && g.chance(30) {
		i := g.n(len(c.Presets))
		g.share(c.Presets[i], c.Presets[(i+1+g.n(len(c.Presets)-1))%len(c.Presets)])
	}
	c.Pod, c.Owned = g.pod()
	if g.chance(25) {
		g.echo(c.Pod, c.Presets[g.n(len(c.Presets))])
	}
	breakOne(seed, &c)
	edges(seed, &c)
	apart(seed, &c)
	copies(seed, &c)
	followUp(seed, &c)
	recreate(seed, &c)
	peer(seed, &c)
	return c
}

// PeerNamespace is the logical namespace of the other namespace's presets
// in PeerPercent of the cases that have some: it extends the pod's
// namespace's name (scenario.Scenario.Namespace names it after the pod's
// namespace's physical name), so that an implementation that finds
// presets by a prefix of their key, without its separator, takes them.
const PeerNamespace = "default-peer"

// PeerPercent is the share of the cases with presets in another namespace
// whose other namespace is PeerNamespace.
const PeerPercent = 40

// peer moves the other namespace's presets, in PeerPercent of the cases
// that have some, to PeerNamespace. It draws from a source of its own, so
// that the rest of every case is what the same seed made before.
func peer(seed uint64, c *Case) {
	g := gen{rand.New(rand.NewPCG(seed^0x9ee5, seed))}
	if len(c.Others) == 0 || !g.chance(PeerPercent) {
		return
	}
	for _, p := range c.Others {
		p.Namespace = PeerNamespace
	}
}

// CopiedPercent is the share of cases whose pod is a copy (Case.Copied).
const CopiedPercent = 20

// copies makes the pod, in CopiedPercent of the cases, a copy of one that
// presets were applied to: it carries the annotations of some of the
// presets (whether or not they select it, whether or not it holds their
// items, which it may hold edited: the small pools make that frequent).
// The annotations say nothing of the items, so an implementation that
// trusts them is caught. It draws from a source of its own, so that the
// rest of every case is what the same seed made before.
func copies(seed uint64, c *Case) {
	g := gen{rand.New(rand.NewPCG(seed^0xc0b1ed, seed))}
	if _, mirror := c.Pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror || !g.chance(CopiedPercent) {
		return
	}
	for _, p := range c.Presets {
		if g.chance(60) {
			c.Copied = append(c.Copied, p.Name)
		}
	}
}

// share copies one item of a preset into another, as written: two
// presets that inject the same item (R3.4: added once) are otherwise rare,
// since items drawn apart seldom agree in every field.
func (g gen) share(from, to *v1alpha1.PodPreset) {
	switch {
	case len(from.Spec.EnvFrom) > 0 && g.chance(50):
		e := from.Spec.EnvFrom[g.n(len(from.Spec.EnvFrom))]
		if !slices.ContainsFunc(to.Spec.EnvFrom, func(x corev1.EnvFromSource) bool { return merge.EnvFromKey(&x) == merge.EnvFromKey(&e) }) {
			to.Spec.EnvFrom = append(to.Spec.EnvFrom, *e.DeepCopy())
		}
	case len(from.Spec.Env) > 0:
		e := from.Spec.Env[g.n(len(from.Spec.Env))]
		if !slices.ContainsFunc(to.Spec.Env, func(x corev1.EnvVar) bool { return x.Name == e.Name }) {
			to.Spec.Env = append(to.Spec.Env, *e.DeepCopy())
		}
	case len(from.Spec.Volumes) > 0:
		v := from.Spec.Volumes[g.n(len(from.Spec.Volumes))]
		if !slices.ContainsFunc(to.Spec.Volumes, func(x corev1.Volume) bool { return x.Name == v.Name }) {
			to.Spec.Volumes = append(to.Spec.Volumes, *v.DeepCopy())
		}
	}
}

// echo makes the pod carry a preset's items already, as written in the
// preset, and the labels its matchLabels ask for: the preset then adds
// nothing to a pod that still gets its annotation (R3.7, R3.8), and items
// equal only once the API server has defaulted the pod are not conflicts
// (R3.4). A mirror pod is left alone: it may not reference Secrets or
// ConfigMaps.
func (g gen) echo(pod *corev1.Pod, p *v1alpha1.PodPreset) {
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return
	}
	for k, v := range p.Spec.Selector.MatchLabels {
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		pod.Labels[k] = v
	}
	for _, v := range p.Spec.Volumes {
		if !slices.ContainsFunc(pod.Spec.Volumes, func(x corev1.Volume) bool { return x.Name == v.Name }) {
			pod.Spec.Volumes = append(pod.Spec.Volumes, *v.DeepCopy())
		}
	}
	for i := range pod.Spec.Containers {
		echoItems(&pod.Spec.Containers[i], p, pod.Spec.Volumes)
	}
	if g.chance(50) {
		for i := range pod.Spec.InitContainers {
			echoItems(&pod.Spec.InitContainers[i], p, pod.Spec.Volumes)
		}
	}
}

// echoItems gives a container the preset's env, envFrom and mounts it can
// take without a conflict of its own making (a name or path it uses).
func echoItems(c *corev1.Container, p *v1alpha1.PodPreset, volumes []corev1.Volume) {
	for _, e := range p.Spec.Env {
		if !slices.ContainsFunc(c.Env, func(x corev1.EnvVar) bool { return x.Name == e.Name }) {
			c.Env = append(c.Env, *e.DeepCopy())
		}
	}
	for _, e := range p.Spec.EnvFrom {
		if !slices.ContainsFunc(c.EnvFrom, func(x corev1.EnvFromSource) bool { return merge.EnvFromLabel(&x) == merge.EnvFromLabel(&e) }) {
			c.EnvFrom = append(c.EnvFrom, *e.DeepCopy())
		}
	}
	for _, m := range p.Spec.VolumeMounts {
		taken := slices.ContainsFunc(c.VolumeMounts, func(x corev1.VolumeMount) bool { return x.MountPath == m.MountPath || x.Name == m.Name })
		exists := slices.ContainsFunc(volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		if !taken && exists {
			c.VolumeMounts = append(c.VolumeMounts, *m.DeepCopy())
		}
	}
}

// preset is a valid preset (R1): a selector, at least one item, mounts
// that name its own volumes, unique keys (env names, volume names, mount
// names and paths; it has one envFrom entry at most).
func (g gen) preset(name, namespace string) *v1alpha1.PodPreset {
	p := &v1alpha1.PodPreset{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "PodPreset"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       v1alpha1.PodPresetSpec{Selector: g.selector()},
	}
	for i := g.n(3); i > 0; i-- {
		// Keys are unique within a preset (R1.5): a name drawn again is
		// left out.
		if e := g.envVar(false); !slices.ContainsFunc(p.Spec.Env, func(x corev1.EnvVar) bool { return x.Name == e.Name }) {
			p.Spec.Env = append(p.Spec.Env, e)
		}
	}
	for i := g.n(2); i > 0; i-- {
		p.Spec.EnvFrom = append(p.Spec.EnvFrom, g.envFrom())
	}
	used := map[string]bool{}
	for i := g.n(3); i > 0; i-- {
		v := g.volume(false)
		if used[v.Name] {
			continue
		}
		used[v.Name] = true
		p.Spec.Volumes = append(p.Spec.Volumes, v)
	}
	paths := map[string]bool{}
	for _, v := range p.Spec.Volumes {
		if g.chance(70) {
			m := g.mount(v.Name)
			if !paths[m.MountPath] {
				paths[m.MountPath] = true
				p.Spec.VolumeMounts = append(p.Spec.VolumeMounts, m)
			}
		}
	}
	if len(p.Spec.Env)+len(p.Spec.EnvFrom)+len(p.Spec.Volumes) == 0 {
		p.Spec.Env = append(p.Spec.Env, g.envVar(false))
	}
	return p
}

// selector uses every operator over the label pools; one in ten is the
// empty selector, which matches every pod (R1.3).
func (g gen) selector() metav1.LabelSelector {
	var s metav1.LabelSelector
	if g.chance(10) {
		return s
	}
	for i := g.n(3); i > 0; i-- {
		if s.MatchLabels == nil {
			s.MatchLabels = map[string]string{}
		}
		s.MatchLabels[g.pick(labelKeys)] = g.pick(labelValues)
	}
	for i := g.n(3); i > 0; i-- {
		req := metav1.LabelSelectorRequirement{Key: g.pick(labelKeys)}
		switch g.n(4) {
		case 0:
			req.Operator = metav1.LabelSelectorOpIn
		case 1:
			req.Operator = metav1.LabelSelectorOpNotIn
		case 2:
			req.Operator = metav1.LabelSelectorOpExists
		default:
			req.Operator = metav1.LabelSelectorOpDoesNotExist
		}
		if req.Operator == metav1.LabelSelectorOpIn || req.Operator == metav1.LabelSelectorOpNotIn {
			for j := 1 + g.n(2); j > 0; j-- {
				req.Values = append(req.Values, g.pick(labelValues))
			}
		}
		s.MatchExpressions = append(s.MatchExpressions, req)
	}
	return s
}

// envVar is an env var with a value or any kind of valueFrom. forMirror
// leaves out references a mirror pod may not have (Secrets, ConfigMaps).
func (g gen) envVar(forMirror bool) corev1.EnvVar {
	e := corev1.EnvVar{Name: g.pick(envNames)}
	kind := g.n(7) // 5 and 6: a plain value
	if forMirror && (kind == 3 || kind == 4) {
		kind = 5
	}
	switch kind {
	case 0:
		e.ValueFrom = &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: g.pick(fieldPaths)}}
		if g.chance(50) {
			e.ValueFrom.FieldRef.APIVersion = "v1"
		}
	case 1:
		e.ValueFrom = &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: g.pick(resources)}}
		if g.chance(30) {
			d := resource.MustParse("1Mi")
			if e.ValueFrom.ResourceFieldRef.Resource[len(e.ValueFrom.ResourceFieldRef.Resource)-3:] == "cpu" {
				d = resource.MustParse("1m")
			}
			e.ValueFrom.ResourceFieldRef.Divisor = d
		}
	case 2:
		e.Value = "" // an empty value is a value
	case 3:
		e.ValueFrom = &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: g.pick(objectNames)}, Key: g.pick([]string{"k", "url"}), Optional: g.maybeBool()}}
	case 4:
		e.ValueFrom = &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: g.pick(objectNames)}, Key: g.pick([]string{"k", "password"}), Optional: g.maybeBool()}}
	default:
		e.Value = g.pick([]string{"1", "2", "x", "postgres://db:5432"})
	}
	return e
}

func (g gen) envFrom() corev1.EnvFromSource {
	e := corev1.EnvFromSource{Prefix: g.pick(prefixes)}
	ref := corev1.LocalObjectReference{Name: g.pick(objectNames)}
	if g.chance(50) {
		e.ConfigMapRef = &corev1.ConfigMapEnvSource{LocalObjectReference: ref, Optional: g.maybeBool()}
	} else {
		e.SecretRef = &corev1.SecretEnvSource{LocalObjectReference: ref, Optional: g.maybeBool()}
	}
	return e
}

// volume is a volume of one of the sources a pod may use without anything
// else existing; forMirror leaves out Secret, ConfigMap and projected
// sources, which a mirror pod may not reference.
func (g gen) volume(forMirror bool) corev1.Volume {
	v := corev1.Volume{Name: g.pick(volumeNames)}
	mode := func() *int32 {
		if g.chance(50) {
			return nil
		}
		m := int32([]int{0o644, 0o400, 0o755}[g.n(3)])
		return &m
	}
	kinds := 9
	if forMirror {
		kinds = 4
	}
	switch g.n(kinds) {
	case 0:
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
		if g.chance(40) {
			v.EmptyDir.Medium = corev1.StorageMediumMemory
		}
		if g.chance(40) {
			q := resource.MustParse([]string{"1Gi", "64Mi"}[g.n(2)])
			v.EmptyDir.SizeLimit = &q
		}
	case 1:
		v.HostPath = &corev1.HostPathVolumeSource{Path: g.pick([]string{"/var/log", "/tmp"})}
		if g.chance(50) {
			t := []corev1.HostPathType{corev1.HostPathDirectoryOrCreate, corev1.HostPathDirectory, corev1.HostPathUnset}[g.n(3)]
			v.HostPath.Type = &t
		}
	case 2:
		v.DownwardAPI = &corev1.DownwardAPIVolumeSource{DefaultMode: mode(), Items: []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}
	case 3:
		v.Image = &corev1.ImageVolumeSource{Reference: g.pick([]string{"busybox", "registry.example/tools:1.2", "tools:latest"})}
		if g.chance(50) {
			v.Image.PullPolicy = corev1.PullIfNotPresent
		}
	case 4:
		v.Secret = &corev1.SecretVolumeSource{SecretName: g.pick(objectNames), DefaultMode: mode(), Optional: g.maybeBool()}
		if g.chance(30) {
			v.Secret.Items = []corev1.KeyToPath{{Key: "k", Path: "k.txt"}}
		}
	case 5:
		v.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: g.pick(objectNames)}, DefaultMode: mode(), Optional: g.maybeBool()}
	case 6:
		v.Projected = &corev1.ProjectedVolumeSource{DefaultMode: mode(), Sources: []corev1.VolumeProjection{
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: g.pick(objectNames)}}},
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", Audience: g.pick([]string{"", "vault"})}},
		}}
	case 7:
		v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: g.pick([]string{"data", "logs"}), ReadOnly: g.chance(30)}
	default:
		v.CSI = &corev1.CSIVolumeSource{Driver: "secrets-store.csi.k8s.io", ReadOnly: g.maybeBool(), VolumeAttributes: map[string]string{"class": g.pick(labelValues)}}
	}
	return v
}

// mount is a mount of the named volume, with any of VolumeMount's fields.
func (g gen) mount(volume string) corev1.VolumeMount {
	m := corev1.VolumeMount{Name: volume, MountPath: g.pick(mountPaths), ReadOnly: g.chance(40)}
	switch g.n(4) {
	case 0:
		m.SubPath = g.pick([]string{"sub", "a/b"})
	case 1:
		m.SubPathExpr = "$(POD_NAME)"
	}
	if g.chance(25) {
		p := []corev1.MountPropagationMode{corev1.MountPropagationNone, corev1.MountPropagationHostToContainer}[g.n(2)]
		m.MountPropagation = &p
	}
	if m.ReadOnly && g.chance(30) && (m.MountPropagation == nil || *m.MountPropagation == corev1.MountPropagationNone) {
		r := []corev1.RecursiveReadOnlyMode{corev1.RecursiveReadOnlyDisabled, corev1.RecursiveReadOnlyIfPossible}[g.n(2)]
		m.RecursiveReadOnly = &r
	}
	return m
}

// pod is a valid pod: any number of app and init containers (sidecars
// among them), items of its own drawn from the same pools as the presets',
// labels, the exclude and mirror annotations with any value, a name or a
// generateName, and pod fields that change nothing the presets touch.
func (g gen) pod() (*corev1.Pod, bool) {
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "website"}}
	owned := false
	if g.chance(20) {
		p.Name, p.GenerateName = "", "website-"
		owned = g.chance(60)
	}
	for i := g.n(4); i > 0; i-- {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[g.pick(labelKeys)] = g.pick(labelValues)
	}
	mirror := g.chance(8)
	if mirror {
		p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: g.pick([]string{"", "x"})}
		p.Spec.NodeName = "node-1"
	}
	if g.chance(15) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[merge.ExcludeAnnotation] = g.pick(excludeVals)
	}
	if g.chance(20) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations["example.com/owner"] = "team-a"
	}
	volumes := map[string]bool{}
	for i := g.n(3); i > 0; i-- {
		v := g.volume(mirror)
		if !volumes[v.Name] {
			volumes[v.Name] = true
			p.Spec.Volumes = append(p.Spec.Volumes, v)
		}
	}
	ids := g.r.Perm(len(containerIDs))
	apps, inits := 1+g.n(2), g.n(3)
	for i := 0; i < apps; i++ {
		p.Spec.Containers = append(p.Spec.Containers, g.container(containerIDs[ids[i]], p.Spec.Volumes, mirror))
	}
	for i := 0; i < inits; i++ {
		c := g.container(fmt.Sprintf("init-%d", i), p.Spec.Volumes, mirror)
		if g.chance(30) {
			always := corev1.ContainerRestartPolicyAlways // a sidecar
			c.RestartPolicy = &always
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
	g.podFields(p)
	return p, owned
}

// container has items of its own: env without duplicate names, envFrom,
// mounts of the pod's volumes at distinct paths.
func (g gen) container(name string, volumes []corev1.Volume, mirror bool) corev1.Container {
	c := corev1.Container{Name: name, Image: g.pick([]string{"nginx", "busybox:1.36"})}
	names := map[string]bool{}
	for i := g.n(3); i > 0; i-- {
		e := g.envVar(mirror)
		if !names[e.Name] {
			names[e.Name] = true
			c.Env = append(c.Env, e)
		}
	}
	if !mirror && g.chance(30) {
		c.EnvFrom = append(c.EnvFrom, g.envFrom())
	}
	paths := map[string]bool{}
	for _, v := range volumes {
		if g.chance(50) {
			m := g.mount(v.Name)
			if !paths[m.MountPath] {
				paths[m.MountPath] = true
				c.VolumeMounts = append(c.VolumeMounts, m)
			}
		}
	}
	if g.chance(30) {
		c.Command = []string{"sh", "-c", "sleep 3600"}
	}
	if g.chance(30) {
		// One port per container: the API server warns about duplicate
		// ports, which would mix its warnings with the implementation's.
		c.Ports = []corev1.ContainerPort{{Name: "http-" + portSuffix(name), ContainerPort: 8080 + portNumber(name)}}
	}
	if g.chance(30) {
		c.Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}
	}
	return c
}

// podFields sets pod fields that presets do not touch, so that an
// implementation that drops or rewrites them is seen.
func (g gen) podFields(p *corev1.Pod) {
	if g.chance(30) {
		p.Spec.RestartPolicy = []corev1.RestartPolicy{corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure}[g.n(2)]
	}
	if g.chance(20) {
		p.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	}
	if g.chance(20) {
		p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule}}
	}
	if g.chance(20) {
		p.Spec.Hostname, p.Spec.Subdomain = "web-0", "web"
	}
	if g.chance(20) {
		b := false
		p.Spec.EnableServiceLinks = &b
	}
	if g.chance(20) {
		s := int64(5)
		p.Spec.TerminationGracePeriodSeconds = &s
	}
	if g.chance(15) && p.Spec.NodeName == "" { // a bound pod may not be gated
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/gate"}}
	}
	if g.chance(15) {
		p.Spec.OS = &corev1.PodOS{Name: corev1.Linux}
	}
	if g.chance(15) {
		p.Spec.HostAliases = []corev1.HostAlias{{IP: "10.0.0.1", Hostnames: []string{"db.local"}}}
	}
}

// portSuffix and portNumber make a container's port unique in its pod.
func portSuffix(container string) string {
	if len(container) > 8 {
		return container[len(container)-8:]
	}
	return container
}

func portNumber(container string) int32 {
	var n int32
	for _, c := range container {
		n = n*31 + c
	}
	return n%1000 + 1
}
