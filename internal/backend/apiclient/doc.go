// Package apiclient is the backend.Cluster of a real API server reached
// with client-go, which the envtest, kind and existing-cluster backends
// build on: Connect makes the clients and proves the server answers, and
// Cluster carries out the scenarios' requests (strict field validation,
// server-side dry runs, the API server's warnings).
package apiclient
