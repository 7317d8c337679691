// Package hint writes the words of the manifest errors: what a value must
// be, what it is, and how to fix it ("must be a string, got number 6379
// (quote it: "6379")"), and where an unknown field may belong ("did you mean
// to indent it under "configMapRef"?").
package hint
