// Package policyplugin runs the API server's own admission-policy plug-ins
// (k8s.io/apiserver's MutatingAdmissionPolicy and ValidatingAdmissionPolicy)
// in this process, for a cluster that has no API server: the offline
// backend and `presetsim apply --implementation policy`. Nothing of a
// policy's evaluation is re-implemented here; the package only gives the
// plug-ins what an API server would:
//
//   - the policies and bindings, in a client of their own (Chain.Client)
//     that gives every write a resourceVersion, as an API server does (the
//     plug-ins compile a policy again only when its resourceVersion
//     changes; client-go's fake tracker sets none);
//   - the namespaces, read from the cluster's client, which must label each
//     with kubernetes.io/metadata.name as the API server does (a binding
//     selects namespaces by it);
//   - an OpenAPI v3 document for api/v1 with no schemas: the mutating
//     dispatcher refuses to patch without a type converter for the pod's
//     group-version, although a JSON patch never uses it;
//   - object interfaces from a scheme, with a conversion between identical
//     types (the offline pod is already v1) and the defaulting the caller
//     gives (an API server defaults a pod again after each patch);
//   - an authorizer that allows everything (offline there is no one else).
//
// Chain calls the plug-ins as an API server's admission chain does: the
// mutating one, again once when it asks to be reinvoked (the API server's
// reinvocation handler), then the validating one, whose Warn actions reach
// the request's warning recorder.
package policyplugin
