// Package suitecheck checks what a run of feature files is asked to do
// before anything starts (a control plane takes seconds): the output
// formats, the tag expression in godog's syntax, the concurrency, the paths,
// that the paths and tags select at least one scenario, that every step
// of it is defined (else its file, line and the nearest defined step), and
// that the DocStrings of objects to create decode (else the file, line and
// field, with a did-you-mean), and that a scenario refers only to what it
// makes (references.go): no ${…} but ${rv:PRESET}, a PodPreset it has
// created by then, a pod it has created or tried to (or a StatefulSet's
// ordinal pod), each else with its line and the nearest name. Mistakes in the feature files themselves
// are FeatureErrors, which presetsim reports with exit status 4: they are
// no verdict on any implementation.
//
// godog itself finds some of these late (an unknown format), reads a
// malformed tag expression as a tag that matches nothing, passes an empty
// selection, and prints Go stubs for an undefined step.
package suitecheck
