// Package backend is the seam between the harness and the places a run's
// objects live: a backend starts a Cluster, and a Cluster is the small set
// of object operations scenarios use (create, get, list, update, patch,
// delete, watch) plus Stop.
//
// What only some clusters can do is a separate small interface, asked for
// with a type assertion (the e2e-framework lesson): APIServer (a real API
// server, with its clients and kubeconfig), WebhookHost (an API server that
// can call a webhook served on this host), InProcessAdmission (a cluster
// that calls an admission plug-in in-process, as the offline one does),
// NodeSimulator, Kubelet (real containers whose logs can be read and which
// can exec), Waits (shorter waits than an API server needs) and Processes
// (the backend starts child processes a killed run would leave behind).
//
// Each backend is a package under backends/, with its own options, New,
// and a Registration (its name, its own flags, the implementation kind it
// tests by default) that the presetsim command lists (internal/registry);
// package harness runs the one start sequence every backend shares. Package
// internal/backend/apiclient holds the Cluster of a real API server that
// the envtest, kind and existing-cluster backends build on.
package backend
