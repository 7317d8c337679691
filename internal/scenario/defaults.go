package scenario

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"presetsim.dev/presetsim/harness/backend"
	"presetsim.dev/presetsim/presets/merge"
)

// Defaulted is an expected pod with the backend's defaults, as Compare
// gives it; CompareDefaulted then compares it with actual pods, so that a
// caller comparing one expectation with several pods defaults it once.
//
// On a backend with an API server the defaults come from a dry-run create
// in the defaulting namespace, made once per distinct pod in a scenario: a
// step's check and the model's after the last step mostly expect the same
// pod (in the minimal scenario of presetsim bench, the second dry run was
// a quarter of the scenario's time). Two pods are the same when what the
// dry run is sent is semantically equal; the defaulting namespace holds
// nothing a scenario changes, so the answer a few milliseconds later
// would be the same.
func (s *Scenario) Defaulted(ctx context.Context, want *corev1.Pod) (*corev1.Pod, error) {
	p := s.toDefault(want)
	var got *corev1.Pod
	if d, ok := s.Objects().(backend.PodDefaulter); ok {
		got = d.DefaultPod(p)
	} else {
		// An API server takes no ephemeral container at creation: they
		// are defaulted as the containers they are the same fields of.
		ephemeral := p.Spec.EphemeralContainers
		p.Spec.EphemeralContainers = nil
		n := len(p.Spec.Containers)
		for _, ec := range ephemeral {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container(*ec.EphemeralContainerCommon.DeepCopy()))
		}
		var err error
		if got, err = s.dryRunDefaults(ctx, p); err != nil {
			return nil, err
		}
		if len(ephemeral) > 0 && len(got.Spec.Containers) == n+len(ephemeral) {
			got = got.DeepCopy()
			for i, c := range got.Spec.Containers[n:] {
				got.Spec.EphemeralContainers = append(got.Spec.EphemeralContainers, corev1.EphemeralContainer{
					EphemeralContainerCommon: corev1.EphemeralContainerCommon(c), TargetContainerName: ephemeral[i].TargetContainerName})
			}
			got.Spec.Containers = got.Spec.Containers[:n]
		}
	}
	got.Labels, got.Annotations = want.Labels, want.Annotations
	return got, nil
}

// toDefault is the pod sent to be defaulted for want: in the defaulting
// namespace, where no module under test runs, with a generated name and
// without what belongs to a stored object.
func (s *Scenario) toDefault(want *corev1.Pod) *corev1.Pod {
	p := want.DeepCopy()
	p.Namespace, p.Name, p.GenerateName = s.World().DefaultingNamespace, "", "expected-"
	p.OwnerReferences, p.ResourceVersion, p.UID, p.CreationTimestamp = nil, "", "", metav1.Time{}
	// No module under test is registered for the defaulting namespace, and
	// it holds no presets; on an existing cluster the implementation may
	// still see it, so the pod also opts out. It keeps the expected
	// annotations, as some change what the API server defaults (a mirror
	// pod gets no service account); Defaulted sets them back as expected.
	p.Annotations = maps.Clone(want.Annotations)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[merge.ExcludeAnnotation] = "true"
	p.Annotations[s.World().Profile.Spec.Annotations.Exclude] = "true"
	p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	return p
}

// defaultedPod is a pod sent to be defaulted and what came back.
type defaultedPod struct{ sent, defaulted *corev1.Pod }

// dryRunDefaults is the API server's answer to a dry-run create of p, the
// scenario's earlier answer when p was sent before. The caller gets a copy
// of its own.
func (s *Scenario) dryRunDefaults(ctx context.Context, p *corev1.Pod) (*corev1.Pod, error) {
	s.defaultsMu.Lock()
	for _, d := range s.defaults {
		if equality.Semantic.DeepEqual(d.sent, p) {
			s.defaultsMu.Unlock()
			return d.defaulted.DeepCopy(), nil
		}
	}
	s.defaultsMu.Unlock()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		return nil, err
	}
	created, err := s.Objects().Create(ctx, backend.Pods, &unstructured.Unstructured{Object: u}, backend.CreateOptions{DryRun: true})
	if err != nil {
		return nil, fmt.Errorf("the expected pod is not valid (dry-run create: %v)", err)
	}
	got, err := backend.ToPod(created)
	if err != nil {
		return nil, err
	}
	s.defaultsMu.Lock()
	s.defaults = append(s.defaults, defaultedPod{p, got.DeepCopy()})
	s.defaultsMu.Unlock()
	return got, nil
}
