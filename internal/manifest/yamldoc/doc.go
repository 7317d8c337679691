// Package yamldoc splits a DocString into its YAML documents and keeps, for
// each, the absolute line of every node in the feature file: a syntax error
// is reported at the first line that makes the document unparsable (not
// where the parser's enclosing block starts), keys written twice are
// reported (the JSON conversion keeps the last silently), and ToJSON
// converts a document as kubectl does.
package yamldoc
