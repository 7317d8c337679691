// Package mutants holds deliberately faulty PodPreset modules, each breaking
// one rule of the specification (docs/specification.md) the way real
// implementations have or could, and modules that measure the suite from
// the other side:
//
//   - 13 classic mutants (classic.go), the faults the suite was first
//     written against: applying presets that do not match, taking presets
//     from other namespaces, ignoring the exclude annotation, applying only
//     the last preset or in the wrong order, prepending, no annotation,
//     skipping init containers, duplicating identical items, applying part
//     of a conflicting set, wiping env on a conflict, no conflict report,
//     events on dry runs;
//   - 26 mutants written from the specification rule by rule (faults.go);
//   - 3 mutants that break R6, state over time (history.go), each keeping
//     state across the admissions of one plug-in instance as a cache or a
//     memo would: a conflict reported once, pods' own env carried into the
//     presets they matched, a preset re-created under its name served as
//     it first was;
//   - noop, which mutates nothing, and kubernetes-1.19, the reference with
//     the 1.19 plug-in's differences, for profiles/kubernetes-1.19.yaml;
//   - example/podinjection (package example), an implementation with its own API and keys,
//     for profiles/example.
//
// Every mutant and kubernetes-1.19 is a decorator of the reference plug-in
// (fault, in decorated.go), never a copy of its flow: a fault changes what
// the plug-in lists, how it is called, what comes out, or where its events
// go.
//
// Run against each mutant, the suite must fail with a failing check
// credited to the broken rule; against noop it must fail every rule of
// R2–R4 that asks for something to happen. Register adds them to a module
// registry ("mutant/<name>", "noop", "kubernetes-1.19"), so `presetsim run
// --module mutant/ignores-exclude` shows what a user of such an
// implementation would see.
package mutants
