package audit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"presetsim.dev/presetsim/presets/conflict"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"presetsim.dev/presetsim/harness/profile"
	"presetsim.dev/presetsim/internal/defaults"
	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
)

// Kinds of Finding.
const (
	// Missing: a preset applies to the workload's template now, and the
	// pod does not carry it (created before the preset, or admitted while
	// the implementation was down under failurePolicy Ignore).
	Missing = "missing"
	// Changed: the pod carries the preset at an older resourceVersion.
	Changed = "changed"
	// Deleted: the pod carries a preset that no longer exists.
	Deleted = "deleted"
	// Unselected: the pod carries a preset that exists and no longer
	// selects the workload's pods.
	Unselected = "unselected"
	// Conflict: the presets now conflict with the workload's template, so
	// none applies to its next pods; nothing records it on running pods.
	Conflict = "conflict"
)

// Finding is one way a pod differs from what the presets now make of its
// workload's template.
type Finding struct {
	Kind   string `json:"kind"`
	Preset string `json:"preset"`
	// Detail says it in a sentence, with the resourceVersions involved.
	Detail string `json:"detail"`
}

// Pod is one audited pod and its findings (none when it is as the presets
// would make it now).
type Pod struct {
	Name     string    `json:"name"`
	Findings []Finding `json:"findings,omitempty"`
}

// Workload is a workload whose pods were audited, with the command that
// would replace its pods by ones admitted with the presets as they are now.
type Workload struct {
	Namespace string `json:"namespace"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Pods      []Pod  `json:"pods"`
	Fix       string `json:"fix,omitempty"`
}

// Drifted reports whether any of the workload's pods has a finding.
func (w Workload) Drifted() bool {
	return slices.ContainsFunc(w.Pods, func(p Pod) bool { return len(p.Findings) > 0 })
}

// Report is an audit of a cluster.
type Report struct {
	Workloads []Workload `json:"workloads"`
	// Unowned is how many pods no workload owns; they are not audited, as
	// nothing would re-create them from a template.
	Unowned int `json:"unownedPods"`
}

// Drifted reports whether any pod has a finding.
func (r *Report) Drifted() bool { return slices.ContainsFunc(r.Workloads, Workload.Drifted) }

// Clients are what an audit reads with: get, list and watch are enough.
type Clients struct {
	Typed   kubernetes.Interface
	Dynamic dynamic.Interface
}

// Run audits every pod a workload owns, in every namespace (or in
// namespace, when not empty): what the presets of its namespace now make of
// the pod template of its owner (the reference's merge, with the profile's
// preset kind and annotations) against what the pod carries. It only reads.
func Run(ctx context.Context, c Clients, prof *profile.Profile, namespace string) (*Report, error) {
	if prof == nil {
		prof = profile.Canonical()
	}
	pods, err := c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("unable to list pods: %w", err)
	}
	list, err := Presets(ctx, c, prof, namespace)
	if err != nil {
		return nil, err
	}
	presets := map[string][]*v1alpha1.PodPreset{}
	for _, p := range list {
		presets[p.Namespace] = append(presets[p.Namespace], p)
	}
	owners := ownerCache{typed: c.Typed, objects: map[string]runtime.Object{}}
	byWorkload := map[string]*Workload{}
	report := &Report{}
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	for i := range pods.Items {
		pod := &pods.Items[i]
		wl, template, err := owners.workload(ctx, pod)
		if err != nil {
			return nil, err
		}
		if template == nil {
			report.Unowned++
			continue
		}
		key := wl.Namespace + "/" + wl.Kind + "/" + wl.Name
		if byWorkload[key] == nil {
			byWorkload[key] = &wl
		}
		w := byWorkload[key]
		w.Pods = append(w.Pods, Pod{Name: pod.Name, Findings: findings(pod, template, presets[pod.Namespace], prof)})
	}
	for _, k := range slices.Sorted(maps.Keys(byWorkload)) {
		w := byWorkload[k]
		if w.Drifted() {
			w.Fix = fix(*w)
		}
		report.Workloads = append(report.Workloads, *w)
	}
	return report, nil
}

// findings compares what the pod carries with what the presets make of
// its template now.
func findings(pod *corev1.Pod, template *corev1.Pod, presets []*v1alpha1.PodPreset, prof *profile.Profile) []Finding {
	byName := map[string]*v1alpha1.PodPreset{}
	for _, p := range presets {
		byName[p.Name] = p
	}
	want := map[string]string{} // preset → resourceVersion, as the reference would admit the template now
	var out []Finding
	if template.Annotations[prof.Spec.Annotations.Exclude] != "true" {
		selected, _ := merge.Select(template, presets)
		result := merge.Apply(defaults.Pod(template), selected)
		// Messages has one per preset, in the order the presets first
		// conflict.
		var culprits []string
		for _, c := range result.Conflicts {
			if !slices.Contains(culprits, c.Preset) {
				culprits = append(culprits, c.Preset)
			}
		}
		for i, m := range conflict.Messages(result.Conflicts) {
			out = append(out, Finding{Kind: Conflict, Preset: culprits[i], Detail: m + "; so no preset applies to this workload's new pods"})
		}
		for _, name := range result.Applied {
			want[name] = byName[name].ResourceVersion
		}
	}
	have := Carried(pod, prof)
	for _, name := range slices.Sorted(maps.Keys(want)) {
		got, ok := have[name]
		switch {
		case !ok:
			out = append(out, Finding{Kind: Missing, Preset: name, Detail: fmt.Sprintf(
				"%s (resourceVersion %s) applies to the template and the pod does not carry it: created before the preset, or admitted while the implementation was down under failurePolicy Ignore", name, want[name])})
		case got != want[name]:
			out = append(out, Finding{Kind: Changed, Preset: name, Detail: fmt.Sprintf(
				"admitted with %s at resourceVersion %s; the preset is now at %s", name, got, want[name])})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(have)) {
		if _, ok := want[name]; ok {
			continue
		}
		if _, exists := byName[name]; !exists {
			out = append(out, Finding{Kind: Deleted, Preset: name, Detail: fmt.Sprintf(
				"carries %s (resourceVersion %s), which no longer exists", name, have[name])})
			continue
		}
		if !slices.ContainsFunc(out, func(f Finding) bool { return f.Kind == Conflict }) {
			out = append(out, Finding{Kind: Unselected, Preset: name, Detail: fmt.Sprintf(
				"carries %s (resourceVersion %s), which no longer applies to the template", name, have[name])})
		}
	}
	return out
}

// Carried returns the presets a pod carries, by name, with the
// resourceVersion its annotation (the profile's) recorded at admission.
func Carried(pod *corev1.Pod, prof *profile.Profile) map[string]string {
	carried := map[string]string{}
	for k, v := range pod.Annotations {
		if name, ok := strings.CutPrefix(k, prof.AppliedPrefix()); ok && prof.AppliedKey(name) == k {
			carried[name] = v
		}
	}
	return carried
}

// fix is the command that replaces a workload's pods by new ones, which
// admission mutates with the presets as they are now.
func fix(w Workload) string {
	switch w.Kind {
	case "Deployment", "StatefulSet", "DaemonSet":
		return fmt.Sprintf("kubectl rollout restart %s/%s -n %s", strings.ToLower(w.Kind), w.Name, w.Namespace)
	case "CronJob":
		return fmt.Sprintf("nothing to restart: the next Job of cronjob/%s in %s is admitted with the presets as they are now", w.Name, w.Namespace)
	case "Job":
		return fmt.Sprintf("kubectl delete job/%s -n %s, then create it again (a Job's pods are not re-created from a changed template)", w.Name, w.Namespace)
	}
	var names []string
	for _, p := range w.Pods {
		if len(p.Findings) > 0 {
			names = append(names, p.Name)
		}
	}
	return fmt.Sprintf("kubectl delete pod -n %s %s (%s/%s re-creates them)", w.Namespace, strings.Join(names, " "), strings.ToLower(w.Kind), w.Name)
}

// Presets lists the presets of the profile's kind in namespace (every
// namespace when ""), as canonical PodPresets, by namespace and name. The
// kind's resource is the one the API server serves it as (discovery).
func Presets(ctx context.Context, c Clients, prof *profile.Profile, namespace string) ([]*v1alpha1.PodPreset, error) {
	gvk := prof.PresetGVK()
	gvr, err := resourceOf(c.Typed.Discovery(), gvk)
	if err != nil {
		return nil, err
	}
	list, err := c.Dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("unable to list %s: %w", gvr.Resource, err)
	}
	return prof.CanonicalPresets(list.Items)
}

// ownerCache finds a pod's workload and the template its pods come from,
// reading each owner once.
type ownerCache struct {
	typed   kubernetes.Interface
	objects map[string]runtime.Object
}

// workload returns the workload a pod belongs to (a ReplicaSet's
// Deployment, a Job's CronJob) and, as a pod, the template its controller
// made it from; a nil template for a pod no controller owns.
func (o ownerCache) workload(ctx context.Context, pod *corev1.Pod) (Workload, *corev1.Pod, error) {
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return Workload{}, nil, nil
	}
	obj, err := o.get(ctx, pod.Namespace, ref.Kind, ref.Name)
	if err != nil || obj == nil {
		return Workload{}, nil, err
	}
	wl := Workload{Namespace: pod.Namespace, Kind: ref.Kind, Name: ref.Name}
	spec, ok := manifest.PodTemplate(obj)
	if !ok {
		return Workload{}, nil, nil
	}
	// A ReplicaSet's Deployment, a Job's CronJob: the workload a user wrote.
	if up := metav1.GetControllerOf(obj.(metav1.Object)); up != nil && (up.Kind == "Deployment" || up.Kind == "CronJob") {
		wl.Kind, wl.Name = up.Kind, up.Name
	}
	template := &corev1.Pod{ObjectMeta: *spec.ObjectMeta.DeepCopy(), Spec: *spec.Spec.DeepCopy()}
	template.Namespace = pod.Namespace
	return wl, template, nil
}

// get reads an owner of a kind this audit knows; nil for others.
func (o ownerCache) get(ctx context.Context, ns, kind, name string) (runtime.Object, error) {
	key := ns + "/" + kind + "/" + name
	if obj, ok := o.objects[key]; ok {
		return obj, nil
	}
	var (
		obj runtime.Object
		err error
	)
	get := metav1.GetOptions{}
	switch kind {
	case "ReplicaSet":
		obj, err = o.typed.AppsV1().ReplicaSets(ns).Get(ctx, name, get)
	case "StatefulSet":
		obj, err = o.typed.AppsV1().StatefulSets(ns).Get(ctx, name, get)
	case "DaemonSet":
		obj, err = o.typed.AppsV1().DaemonSets(ns).Get(ctx, name, get)
	case "Job":
		obj, err = o.typed.BatchV1().Jobs(ns).Get(ctx, name, get)
	case "ReplicationController":
		obj, err = o.typed.CoreV1().ReplicationControllers(ns).Get(ctx, name, get)
	default:
		return nil, nil
	}
	switch {
	case apierrors.IsNotFound(err):
		obj = nil // the owner is gone: nothing re-creates the pod from it
	case err != nil:
		return nil, fmt.Errorf("unable to read %s %s/%s: %w", kind, ns, name, err)
	}
	o.objects[key] = obj
	return obj, nil
}

// resourceOf is the resource the API server serves a kind as.
func resourceOf(disc discovery.DiscoveryInterface, gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	list, err := disc.ServerResourcesForGroupVersion(gvk.GroupVersion().String())
	if err != nil {
		return schema.GroupVersionResource{}, fmt.Errorf("the API server does not serve %s (is the CRD installed?): %w", gvk.GroupVersion(), err)
	}
	for _, r := range list.APIResources {
		if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
			return gvk.GroupVersion().WithResource(r.Name), nil
		}
	}
	return schema.GroupVersionResource{}, fmt.Errorf("the API server serves no %s in %s (is the CRD installed?)", gvk.Kind, gvk.GroupVersion())
}
