// Package manifest turns the YAML manifests that feature files hold in Gherkin
// DocStrings into Kubernetes objects, and reports bad input precisely.
//
// Decode reads a (multi-document) DocString into objects: kinds registered in
// the scheme (client-go's built-in types and PodPreset, see Scheme) come back
// typed and are decoded strictly; other kinds, such as another
// implementation's custom resources, come back as *unstructured.Unstructured.
// DecodeInto reads a single-document DocString into a given object.
//
// Every problem is reported as an *Error that names the feature file, the
// absolute line in it and, when known, the field path with list indices, for
// example
//
//	features/simple.feature:23: spec.env[0].value: must be a string, got number 6379 (quote it: "6379")
//
// Several problems in one DocString are returned together (errors.Join), so a
// scenario author can fix them in one go. Problems detected:
//   - YAML syntax errors, at the line where the input stops making sense;
//   - a missing apiVersion or kind, and an apiVersion that does not serve the
//     kind (with a hint naming the one that does, e.g. "apps/v1");
//   - unknown and duplicate fields, with a hint when the field belongs one
//     level deeper (for example inside "configMapRef" or "secret");
//   - values of the wrong type, such as a number where a string is expected.
//
// Decoding never panics, whatever the input.
//
// Files: manifest.go (the API), decode.go (deciding the kind of a document)
// and typed.go (strict typed decoding that reports every wrong value, not
// only the first). Beneath it: yamldoc (documents and their lines),
// fieldpath (field paths in JSON trees, YAML nodes and Go types) and hint
// (the words of the messages).
package manifest
