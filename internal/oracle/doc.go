// Package oracle decides whether an implementation did what the
// specification says to an admission: it runs the model (presets/model)
// on what was submitted under the profile's declarations (Expect),
// compares what the implementation did with every outcome the model
// allows (Check, CheckAdmission: the stored pod once defaulted, its
// annotations, the warnings, the conflict events, a refusal, an invalid
// preset stored or refused), credits each difference to the rules it shows
// broken, read with the model's explanation (rules.go), and names the
// profile's declarations that change the model's outcome (Explain).
//
// It is the one place verdicts are computed: the steps call it after a
// scenario's last step, presetsim fuzz for every generated case and while
// it shrinks one. It neither generates nor runs anything: what was
// observed comes in (Observed, scenario.Admission), Disagreements go out.
package oracle
