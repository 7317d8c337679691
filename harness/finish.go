package harness

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
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
			if err := s.exec(ctx, &pod, cs.Name, finishCommand); err != nil {
				return fmt.Errorf("unable to finish container %q of pod %q: %w", cs.Name, pod.Name, err)
			}
			finished[key] = true
		}
	}
	return nil
}

// exec runs command in a container through the API server (pods/exec).
func (s *Scenario) exec(ctx context.Context, pod *corev1.Pod, container string, command []string) error {
	req := s.w.Client.CoreV1().RESTClient().Post().Resource("pods").Namespace(pod.Namespace).Name(pod.Name).
		SubResource("exec").VersionedParams(&corev1.PodExecOptions{
		Container: container, Command: command, Stdout: true, Stderr: true,
	}, scheme.ParameterCodec)
	executor, err := remotecommand.NewSPDYExecutor(s.w.Config, "POST", req.URL())
	if err != nil {
		return err
	}
	var stdout, stderr bytes.Buffer
	if err := executor.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		return fmt.Errorf("%w: %s", err, bytes.TrimSpace(append(stdout.Bytes(), stderr.Bytes()...)))
	}
	return nil
}
