// Package defaults gives a PodPreset's items, and a pod's, the defaults the
// API server gives a pod's env vars and volumes (core/v1, Kubernetes 1.37).
//
// A PodPreset is a custom resource, so the API server never defaults the
// items it holds, while it does default the same items of every pod it
// decodes. The merge engine compares a preset's items with the pod's (R3.4 of
// docs/specification.md), so it first defaults the preset's (Preset). Backends
// without an API server (offline, the preview) default the pod the same way
// (Pod) before admission, as the API server would have. Nothing here is a
// PodPreset rule; it is the part of the API server those rules rely on, kept
// apart from package merge so that the merge reads like the spec.
package defaults
