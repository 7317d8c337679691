// Package conflict is the one definition of a PodPreset conflict and of
// how it is reported (R4.1, R4.3): the item that conflicts (Item), the
// report of one preset's conflicts (Report) with its message — the text of
// the PodPresetConflict event and of the admission warning — and its event
// (Event, Record), the object the event is attached to (Target), and the
// pieces the MutatingAdmissionPolicy's CEL builds the same message from
// (Prefix, Separator, InContainer).
//
// The reference plug-in, the model, the mutants and the policy render a
// conflict only through this package; the oracle reads an observed event
// back only through Observed and a message only through Parse, its
// inverse. A field added to the conflict event is added here, where it is
// built, recorded, read back and compared (Event.Key).
package conflict
