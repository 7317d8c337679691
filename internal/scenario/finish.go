package scenario

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// finishCommand ends a container of the printenv test image with exit
// status 0 (cmd/printenv).
var finishCommand = []string{"/usr/local/bin/printenv", "finish"}

// finishPods lets the running pods of a workload complete on a real
// kubelet: every container runs the printenv image, which sleeps until told
// to finish. Containers that are not running yet are left for a later call;
// each container is told once (finished remembers it, as the pod's status
// says Running for a while after).
func (s *Scenario) finishPods(ctx context.Context, pods []corev1.Pod, finished map[string]bool) error {
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		for _, cs := range pod.Status.ContainerStatuses {
			key := string(pod.UID) + "/" + cs.Name
			if cs.State.Running == nil || finished[key] {
				continue
			}
			if err := s.kubelet().Exec(ctx, pod.Namespace, pod.Name, cs.Name, finishCommand); err != nil {
				return fmt.Errorf("unable to finish container %q of pod %q: %w", cs.Name, pod.Name, err)
			}
			finished[key] = true
		}
	}
	return nil
}
