// Package mutants holds deliberately faulty PodPreset modules, each breaking
// one rule of the specification (../shared/spec/podpreset.md) the way real
// implementations have: applying presets that do not match, taking presets
// from other namespaces, ignoring the exclude annotation, applying only the
// last preset, applying in the wrong order, prepending injected items,
// leaving out the annotation, skipping init containers, duplicating
// identical items, applying part of a conflicting set, wiping a container's
// env on a conflict, not reporting conflicts, and recording events on dry
// runs.
//
// They exist to prove the feature suite's power: run against each, the
// suite must fail, and a failing scenario must be tagged with the broken
// rule. Register adds them to a module registry as "mutant/<name>", so
// `presetsim run --module mutant/ignores-exclude` shows what a user of such
// an implementation would see.
package mutants
