// Package offline is the in-memory backend: objects live in client-go's
// object trackers and every pod created in a namespace an admission plug-in
// is registered for (backend.InProcessAdmission) is passed to it in-process,
// as the API server would call its webhook. It is fast and honest: what it
// cannot do (validation, controllers but a ReplicaSet one, nodes) is an
// UnsupportedError, never a pass. See Cluster for exactly what it does.
package offline
