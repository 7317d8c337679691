// Package featureloc finds where godog's steps are in their feature files
// (the step's line and its DocString's first line), so that a bad manifest
// in a DocString is reported at its line. godog does not expose the parsed
// documents, so each file is parsed again with gherkin and a pickle is
// matched by name and steps.
package featureloc
