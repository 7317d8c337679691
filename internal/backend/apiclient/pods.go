package apiclient

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
)

// PodLogs returns what a container printed (pods/log). It is not named
// Logs: a backend whose pods run the printenv test image says so by
// implementing backend.Kubelet with it, and not every cluster's pods do.
func (c *Cluster) PodLogs(ctx context.Context, namespace, pod, container string) ([]byte, error) {
	return c.api.Client.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container}).DoRaw(ctx)
}

// PodExec runs command in a container through the API server (pods/exec).
func (c *Cluster) PodExec(ctx context.Context, namespace, pod, container string, command []string) error {
	req := c.api.Client.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).
		SubResource("exec").VersionedParams(&corev1.PodExecOptions{
		Container: container, Command: command, Stdout: true, Stderr: true,
	}, scheme.ParameterCodec)
	executor, err := remotecommand.NewSPDYExecutor(c.api.Config, "POST", req.URL())
	if err != nil {
		return err
	}
	var stdout, stderr bytes.Buffer
	if err := executor.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		return fmt.Errorf("%w: %s", err, bytes.TrimSpace(append(stdout.Bytes(), stderr.Bytes()...)))
	}
	return nil
}
