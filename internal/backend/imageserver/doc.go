// Package imageserver is a read-only OCI registry that serves one image
// under every repository name and tag. The kind backend points the node's
// containerd at it as the mirror of the usual registries, so that a pod of
// a feature (image: ecorp/website, pulled because its tag is "latest") runs
// our test image, cmd/printenv, which prints the environment the kubelet
// gave the container: on a machine that can pull nothing, every scenario's
// pods start, become ready and show what they see.
//
// It answers the distribution API's pull requests only: GET /v2/, and GET
// or HEAD of /v2/<name>/manifests/<reference> and
// /v2/<name>/blobs/<digest>. A manifest asked for by digest, or a blob, that
// is not the served image's is 404.
package imageserver
