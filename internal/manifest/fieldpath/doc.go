// Package fieldpath names a place in a manifest by its field path, as
// messages print it (spec.volumes[1].secretName, with keys that hold dots in
// brackets), and finds that place in the three shapes a manifest takes
// while it is decoded: the JSON tree (ValueAt, WithValue, and Resolve for a
// path as the JSON decoder writes it), the YAML nodes it was written as
// (LookupNode, following aliases and merge keys, and YAML 1.1 booleans as
// keys) and the Go type it decodes into (TypeAt, Fields).
package fieldpath
