// Package preview shows what presets do to pods without an API server: it
// runs the reference admission plug-in in-process on pods (and on the pods
// that workloads' templates would produce) read from manifests, with the
// presets read from the same manifests.
//
// Offline there is no API server to default the pod before admission, so
// the pod's volumes and env vars get the defaults the API server would give
// them (defaults.Pod); no other defaults are applied. A preset
// without a resourceVersion (as written in a file) is given "offline", which
// then appears in the podpreset-<name> annotation.
package preview
