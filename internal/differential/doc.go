// Package differential runs the same feature files on two backends, the
// offline one and envtest, and reports every scenario whose outcome or
// resulting pods differ between them.
//
// Outcomes are the scenarios' (outcome.Outcome); "unsupported" is a step
// the backend cannot honour, with its reason. A scenario unsupported offline is listed,
// not compared. Otherwise the outcomes must be equal, and so must the pods
// each run left behind, compared defaulting-aware: each offline pod is given
// the API server's defaults by a server-side dry run on the envtest control
// plane (in its defaulting namespace, where no module runs), then compared
// with the envtest pod as "the pod ... should be" compares, which also leaves
// out what other admission plug-ins and the scheduler add. Pods are paired by
// logical namespace and name; pods a controller named from a generateName
// are paired by owner and, within an owner, by content. The values of the
// podpreset-<name> annotations are resourceVersions, which no two stores
// share, so they are compared only for being present.
package differential
