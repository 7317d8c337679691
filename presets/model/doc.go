// Package model is the oracle every verdict is computed from: the
// reference PodPreset behaviour as one function over one admission, with a
// profile's declarations as options (harness.md "Verdicts come from a
// model").
//
// Admit takes the presets of the pod's namespace at admission time, the pod
// as submitted and whether the request is a dry run, and returns what must
// happen: the admitted pod (annotations included) or a refusal, the
// conflicts as data, the admission warnings and the events. The zero
// Options are the specification (docs/specification.md); the others are
// what a profile may declare:
//
//   - Conflicts: SkipAll (R4.2, the specification), Reject, SkipPreset or
//     Apply. Under every one of them R4.4 holds: the merge never adds an
//     item that conflicts, so nothing the pod had is lost or rewritten.
//   - Order: ByName (R3.6) or Unspecified, for which Admit returns the
//     outcome of every order of the matching presets.
//   - Variant (merge.Variant): init containers untouched, envFrom entries
//     de-duplicated only, always appended, or appended unless the container
//     was submitted with an identical one.
//
// Validate says which presets the API must refuse at creation (R1.3–R1.6),
// with the field paths a refusal must name (R1.8); a profile's
// validation: schema or none declares that its API does not.
//
// The model says what an implementation must do; whether a check of it is
// claimed (an implementation that records no events) is the harness's
// business, not the model's. Each option is a few lines over package merge,
// so the model is as plain as the reference it varies.
package model
