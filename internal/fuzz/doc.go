// Package fuzz is generative conformance (presetsim fuzz, harness.md
// "Generative conformance"): it generates cases — the presets of a
// namespace, a preset in another one, and a pod — from the Go types, has
// the implementation under test admit each (a server-side dry run, then a
// real create) on any backend, and compares the whole outcome (the stored
// pod, its annotations, the warnings, the conflict events, a refusal)
// with the model (presets/model) under the profile's declarations, through
// the oracle.
//
// Generation (gen.go) draws from the API surface rather than from a
// hand-picked list — every kind of env var source, envFrom source, the
// volume sources a pod may use, every VolumeMount field, selectors with
// every operator, any number of app and init containers (sidecars
// included), exclude and mirror annotations with any value, pods without a
// name and pods with a controller owner — and takes keys from small pools,
// so that identical items, conflicts between the pod and a preset and
// between presets, several at once and in every kind of container, are
// frequent; some pods already carry a preset's items as written, and some
// presets share an item, so that items equal only once defaulted and items
// two presets inject alike are frequent too. In CopiedPercent of the cases
// the pod is a copy of one presets were applied to: it carries some
// presets' annotations at the versions they are stored at (Case.Copied,
// written once they are), whatever its items, so that an implementation
// that takes them for proof of anything is caught. The same seed gives
// the same cases.
//
// In InvalidPercent of the cases one preset is made invalid, one way of
// the specification's R1.3–R1.6 (invalid.go); the implementation's API must
// refuse it naming an offending field path (R1.8), unless the profile
// declares validation: schema or none. Offline no API server validates,
// so the case goes on without that preset, unjudged.
//
// Every case is judged by the oracle (internal/oracle), as the steps'
// scenarios are: the disagreements it finds are grouped by kind — the
// hypothesis that explains them (cases two explain alike credited to the
// one that explains more of the run, kinds.go), else their rules and the
// aspect of the outcome; the first of each kind is shrunk,
// greedily, to a smaller case that still breaks the rule (shrink.go) and
// written as a ready-to-run scenario (feature.go).
//
// In FollowUpPercent of the cases, once the pod is created, the case sends
// what an implementation's registration may send it and it must leave
// alone (followups.go, R5.4): an UPDATE of the pod setting a label one of
// its presets selects by (R2.1), an ephemeral container through
// pods/ephemeralcontainers (R3.2; not into a mirror pod, which an API
// server refuses), and a ReplicaSet of no replicas whose template is the
// pod as submitted (R2.6). Each must be stored as sent; one that is not is
// a disagreement of its own aspect, written out as those steps.
//
// In EdgePercent of the cases (those with no invalid preset), the case
// is taken to one or more edges of what the API accepts (edges.go, R6.4):
// preset names of the longest a name may have (53, for the applied
// annotation's key), with dots, and a pod name of 247; ten to twelve more
// presets that select the pod, each with items of its own; a preset with
// forty to fifty env vars; six to eight app containers and half as many
// init containers. Over 10,000 cases of seed 1 (TestEdgeDistribution):
// 11 % reach an edge — 5 % the longest names, 4.6 % ten presets and more,
// 4.6 % a preset of forty items, 4.8 % many containers —, 18.8 % have a
// history and 25 % follow-ups.
//
// Items from small pools conflict often, and a conflict leaves every
// preset out (R4.2), so few cases would have presets applied together. In
// ApartPercent of the cases where two presets or more select the pod (none
// invalid), the keys of the selecting presets' items are set apart
// (apart.go): they conflict with nothing, and two or three of the presets
// inject one same envFrom entry, so that the order presets apply in (R3.3,
// R3.6) and an item two of them inject alike (R3.4) show: 10.4 % of the
// cases of seed 1.
//
// Cases have histories (history.go, R6): the dry run comes before the
// create in the same namespace; in RecreatePercent of the cases, once the
// pod is created, one of its presets is deleted and created again under
// the same name with another spec, and the pod is created again under
// another name, judged by the presets as they stand then (once the
// implementation shows the new version, or once the profile's
// propagation window has passed). The pool's namespaces remember the
// presets they held for earlier cases (Observed.Before), which the
// diagnosis reads: a stale cache keyed by name is named for R6.1 however
// it was found. A disagreement whose first rule is an R6 one is shrunk in
// namespaces never used before, so that the scenario written shows it
// from the case's own history.
//
// A quarter of the cases have a preset in another namespace; in
// PeerPercent of those, that namespace's name extends the pod's
// namespace's (PeerNamespace, made by the scenario after the pod's
// physical namespace: default-x1y2z3w4-peer), so that an implementation
// that finds presets by a prefix of their key, without its separator,
// takes them (R2.2).
//
// What it does not generate: ephemeral containers at creation (an API
// server refuses them), updates of a preset (R1.7), deletions without a
// new version, concurrent admissions, and workloads that run pods (a
// pod's controller owner is a ConfigMap, which is what R4.3 looks at).
package fuzz
