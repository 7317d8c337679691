// Package oracle decides whether an implementation did what the
// specification says to an admission: it runs the model (presets/model)
// on what was submitted under the profile's declarations (Expect),
// compares what the implementation did with every outcome the model
// allows (Check, CheckAdmission: the stored pod once defaulted, its
// annotations, the warnings, the conflict events, a refusal, an invalid
// preset stored or refused), credits each difference to the rules it shows
// broken, and names the profile's declarations that change the model's
// outcome (Explain).
//
// Rules are credited in two ways. A case is first diagnosed (Diagnose,
// diagnose.go): hypotheses — variants of the model, each one way of
// breaking one rule — are tried, and one that makes exactly what the
// implementation made of every request of the case ("behaves as if it
// decides exclusion otherwise") names its rule first (Disagreement.AsIf,
// Explain). Otherwise the rules are read from the differences with the
// model's explanation: which presets match, which it applies, why a
// request is left alone, the paths that differ (rules.go, attribution.go).
//
// It is the one place verdicts are computed: the steps call it after a
// scenario's last step, presetsim fuzz for every generated case and while
// it shrinks one. It neither generates nor runs anything: what was
// observed comes in (Observed, scenario.Admission), Disagreements go out.
package oracle
