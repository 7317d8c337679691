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
// says Running for a while after). A container that could not be told is
// told again at the next call, and the last failure is returned for the
// caller to report if the workload never completes: the command that
// finishes a container can itself be killed with it (exit status 137, seen
// on kind), which is no failure at all.
func (s *Scenario) finishPods(ctx context.Context, pods []corev1.Pod, finished map[string]bool) error {
	var last error
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
				last = fmt.Errorf("unable to finish container %q of pod %q: %w", cs.Name, pod.Name, err)
				continue
			}
			finished[key] = true
		}
	}
	return last
}
