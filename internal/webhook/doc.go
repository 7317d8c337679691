// Package webhook serves any k8s.io/apiserver admission.MutationInterface to a
// real API server as a mutating admission webhook (admission.k8s.io/v1), over
// TLS with a certificate from a CA made for the run.
//
// The Handler does what the API server does around an in-tree plug-in: it turns
// the AdmissionReview into admission.Attributes (typed objects from a scheme),
// collects admission warnings from the context, calls Admit, and answers with a
// JSON patch from the object as received to the object as mutated. For a pod
// changed only where a PodPreset writes, the patch adds the annotations and
// appends the new list items (podPatch); otherwise it is a diff of the two
// encoded objects.
package webhook
