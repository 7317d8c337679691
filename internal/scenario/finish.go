package scenario

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"presetsim.dev/presetsim/harness/backend"
)

// finishCommand ends a container of the printenv test image with exit
// status 0 (cmd/printenv).
var finishCommand = []string{"/usr/local/bin/printenv", "finish"}

// retell is how long a container told to finish may still show Running
// before it is told again: a kubelet reports the exit within seconds.
const retell = 10 * time.Second

// finishPods lets the running pods of a workload complete on a real
// kubelet: every container runs the printenv image, which sleeps until told
// to finish. Containers that are not running yet are left for a later call;
// a container told is not told again for retell (finished remembers when,
// as the pod's status says Running for a while after), then it is told
// again if it still runs. A container that could not be told is told again
// at the next call, and the last failure is returned for the caller to
// report if the workload never completes: the command that finishes a
// container can itself be killed with it (exit status 137, seen on kind),
// which is no failure at all.
func finishPods(ctx context.Context, k backend.Kubelet, pods []corev1.Pod, finished map[string]time.Time, now time.Time) error {
	var last error
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		for _, cs := range pod.Status.ContainerStatuses {
			key := string(pod.UID) + "/" + cs.Name
			if told, ok := finished[key]; cs.State.Running == nil || ok && now.Sub(told) < retell {
				continue
			}
			if err := k.Exec(ctx, pod.Namespace, pod.Name, cs.Name, finishCommand); err != nil {
				last = fmt.Errorf("unable to finish container %q of pod %q: %w", cs.Name, pod.Name, err)
				continue
			}
			finished[key] = now
		}
	}
	return last
}
