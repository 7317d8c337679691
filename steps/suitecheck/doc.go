// Package suitecheck checks what a run of feature files is asked to do
// before anything starts (a control plane takes seconds): the output
// formats, the tag expression in godog's syntax, the concurrency, the paths,
// and that the paths and tags select at least one scenario. godog itself
// finds some of these late (an unknown format), reads a malformed tag
// expression as a tag that matches nothing, and passes an empty selection.
package suitecheck
