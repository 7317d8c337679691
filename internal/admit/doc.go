// Package admit calls a k8s.io/apiserver mutating admission plug-in the way
// an API server does (Invoke): only for an operation it handles, with a
// warning recorder in the context, mutating the request's object in place,
// a panic turned into an error. It is the harness's one admission path:
// the webhook handler, the offline backend and the preview admit through
// it. The reference plug-in itself (presets/admission) knows nothing of it.
package admit
