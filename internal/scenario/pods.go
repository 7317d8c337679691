package scenario

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/harness/backend"
)

// getPod returns a pod of the scenario by logical namespace and name.
func (s *Scenario) getPod(ctx context.Context, logicalNS, name string) (*corev1.Pod, error) {
	ns, err := s.Namespace(ctx, logicalNS)
	if err != nil {
		return nil, err
	}
	u, err := s.cluster.Get(ctx, backend.Pods, ns, name)
	if err != nil {
		return nil, s.Failed(err, "unable to get pod %q", name)
	}
	return backend.ToPod(u)
}

// Pods returns every pod in the scenario's namespaces, with logical
// namespace names, sorted by namespace and name: what the scenario left
// behind, for comparing backends.
func (s *Scenario) Pods(ctx context.Context) ([]corev1.Pod, error) {
	var out []corev1.Pod
	for logical, physical := range s.physical {
		pods, err := s.podsIn(ctx, physical)
		if err != nil {
			return nil, fmt.Errorf("unable to list the pods of namespace %s: %w", logical, err)
		}
		for i := range pods {
			pods[i].Namespace = logical
		}
		out = append(out, pods...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// PodsIn lists the pods of a physical namespace.
func (s *Scenario) PodsIn(ctx context.Context, ns string) ([]corev1.Pod, error) {
	return s.podsIn(ctx, ns)
}

// podsIn lists the pods of a physical namespace.
func (s *Scenario) podsIn(ctx context.Context, ns string) ([]corev1.Pod, error) {
	list, err := s.cluster.List(ctx, backend.Pods, ns)
	if err != nil {
		return nil, err
	}
	pods := make([]corev1.Pod, 0, len(list))
	for i := range list {
		p, err := backend.ToPod(&list[i])
		if err != nil {
			return nil, err
		}
		pods = append(pods, *p)
	}
	return pods, nil
}

// noNodes says that the backend runs no pods.
func (s *Scenario) noNodes() error {
	return &backend.UnsupportedError{Backend: s.w.Backend, Reason: "there are no nodes to schedule pods on"}
}
