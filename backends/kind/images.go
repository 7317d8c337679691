package kind

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"

	"presetsim.dev/presetsim/internal/backend/imageserver"
	"presetsim.dev/presetsim/internal/backend/kindcluster"
)

// mirroredRegistries are the registries whose pulls the node's containerd
// sends to the harness's image server (containerd 1.6 reads
// certs.d/<host>/hosts.toml per registry and has no catch-all).
var mirroredRegistries = []string{"docker.io", "gcr.io", "registry.k8s.io", "quay.io", "ghcr.io", "k8s.gcr.io", "mcr.microsoft.com", "public.ecr.aws"}

// serveImages serves the printenv image, as saved from the node image's
// build, under every name on this host's kind-network address, and makes it
// the mirror of the usual registries on every node.
func (c *running) serveImages(ctx context.Context, runID string) error {
	var saved, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", "save", kindcluster.PrintenvImage)
	cmd.Stdout, cmd.Stderr = &saved, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("reading the test image %s (built by make kind-image): %v: %s", kindcluster.PrintenvImage, err, bytes.TrimSpace(stderr.Bytes()))
	}
	img, err := imageserver.FromDockerArchive(&saved)
	if err != nil {
		return fmt.Errorf("the test image %s: %w", kindcluster.PrintenvImage, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(c.kind.HostAddress, "0"))
	if err != nil {
		return fmt.Errorf("unable to listen for the image mirror on the kind network: %w", err)
	}
	c.images = imageserver.Serve(ln, img)
	mirror := c.images.URL
	hosts := fmt.Sprintf("# written by presetsim for run %s\n[host.%q]\n  capabilities = [\"pull\", \"resolve\"]\n", runID, mirror)
	files := make(map[string]string, len(mirroredRegistries))
	for _, registry := range mirroredRegistries {
		files["/etc/containerd/certs.d/"+registry+"/hosts.toml"] = hosts
	}
	return c.kind.WriteFiles(files)
}
