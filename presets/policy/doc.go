// Package policy compiles a namespace's PodPresets into a
// MutatingAdmissionPolicy (admissionregistration.k8s.io/v1, KEP-3962) and
// its binding: the API server then applies the presets itself, in CEL, with
// no webhook, no certificates and no network hop.
//
// The design is "compiled": the presets are inlined in the policy, defaulted
// as a pod's items are, in name order, so that one evaluation sees them all
// and can refuse every preset when one conflicts (R4.2), in the order of
// R3.6. The other design, one policy whose params are the PodPresets
// themselves, needs no controller but evaluates each preset on its own, in
// an order the API server does not promise, and compares a preset's
// undefaulted items with the pod's defaulted ones (a configMap volume
// without defaultMode would conflict with itself on reinvocation);
// docs/policy.md has the comparison. The price of compiling is that the
// policy must be compiled again when a preset changes: the harness's policy
// implementation does it with a controller, `presetsim policy` once.
//
// A ValidatingAdmissionPolicy with validationActions [Warn] beside it
// returns the conflict warnings (R4.3, warn.go). What a policy cannot do:
// record events. A pod annotated ProbeAnnotation learns what both policies
// were compiled from, so that a harness knows when the API server applies
// a preset.
package policy
