package mutants

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission"

	"presetsim.dev/presetsim/internal/manifest"
	"presetsim.dev/presetsim/presets/apis/settings/v1alpha1"
	"presetsim.dev/presetsim/presets/merge"
	"presetsim.dev/presetsim/rule"
)

// operationMutants mutate requests other than a pod's first admission,
// which an implementation's registration may send it (R5.4): each does
// what a webhook that never looks at the operation, the subresource or the
// kind would do, or one that is not idempotent when reinvoked (R3.8).
var operationMutants = []decoratedMutant{
	// R2.1
	{Mutant{"mutates-updates", rule.R2_1, "applies presets to a pod's UPDATE too (a label or an annotation changed after creation), as a webhook that never looks at the operation"}, fault{
		other: func(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces, env *call) error {
			pod, ok := a.GetObject().(*corev1.Pod)
			if !ok || a.GetOperation() != admission.Update || a.GetSubresource() != "" {
				return nil
			}
			return asPodCreate(ctx, a, o, env, pod)
		}}},
	// R3.2
	{Mutant{"mutates-ephemeral-containers", rule.R3_2, "injects presets' env, envFrom and mounts into the ephemeral containers kubectl debug adds, as into any container"}, fault{
		other: func(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces, env *call) error {
			pod, ok := a.GetObject().(*corev1.Pod)
			if !ok || a.GetSubresource() != "ephemeralcontainers" {
				return nil
			}
			// The ephemeral containers, as the containers of a pod of the
			// same labels.
			stand := &corev1.Pod{ObjectMeta: *pod.ObjectMeta.DeepCopy()}
			for _, ec := range pod.Spec.EphemeralContainers {
				stand.Spec.Containers = append(stand.Spec.Containers, corev1.Container(*ec.EphemeralContainerCommon.DeepCopy()))
			}
			if err := asPodCreate(ctx, a, o, env, stand); err != nil {
				return err
			}
			for i := range pod.Spec.EphemeralContainers {
				c, got := &pod.Spec.EphemeralContainers[i], stand.Spec.Containers[i]
				c.Env, c.EnvFrom, c.VolumeMounts = got.Env, got.EnvFrom, got.VolumeMounts
			}
			return nil
		}}},
	// R2.6
	{Mutant{"mutates-templates", rule.R2_6, "applies presets to the pod template of a workload it is sent (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job), not only to the pods its controller makes"}, fault{
		other: func(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces, env *call) error {
			template, ok := manifest.PodTemplate(a.GetObject())
			if !ok || a.GetOperation() != admission.Create {
				return nil
			}
			pod := &corev1.Pod{ObjectMeta: *template.ObjectMeta.DeepCopy(), Spec: *template.Spec.DeepCopy()}
			pod.Namespace = a.GetNamespace()
			if err := asPodCreate(ctx, a, o, env, pod); err != nil {
				return err
			}
			template.Annotations, template.Spec = pod.Annotations, pod.Spec
			return nil
		}}},
	// R3.8
	{Mutant{"duplicates-on-reinvocation", rule.R3_8, "appends the env vars of every preset whose selector matches the pod again to every container when the pod already carried the preset's annotation, conflict or not, as a webhook that never expects to see its own output (the API server reinvokes it when a later webhook changed the pod)"}, fault{
		after: func(submitted, admitted *corev1.Pod, matching []*v1alpha1.PodPreset) {
			for _, p := range matching {
				key := merge.AnnotationKey(p.Name)
				if v, ok := submitted.Annotations[key]; !ok || v != p.ResourceVersion {
					continue
				}
				for _, cs := range [][]corev1.Container{admitted.Spec.InitContainers, admitted.Spec.Containers} {
					for i := range cs {
						cs[i].Env = append(cs[i].Env, p.Spec.Env...)
					}
				}
			}
		}}},
}

// asPodCreate has the reference admit pod as if the request were the
// CREATE of that pod, recording no events.
func asPodCreate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces, env *call, pod *corev1.Pod) error {
	create := admission.NewAttributesRecord(pod, nil, corev1.SchemeGroupVersion.WithKind("Pod"), a.GetNamespace(), pod.Name,
		corev1.SchemeGroupVersion.WithResource("pods"), "", admission.Create, &metav1.CreateOptions{}, a.IsDryRun(), a.GetUserInfo())
	return env.quietPlugin(env.presets).Admit(ctx, create, o)
}
