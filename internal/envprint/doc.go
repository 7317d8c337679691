// Package envprint is the format in which the kind backend's test image
// (cmd/printenv) prints the environment its container was started with, and
// its parser: a header line, one NAME="value" line per variable sorted by
// name (the value quoted as a Go string, so newlines survive), and an end
// line. It imports nothing but the standard library, so that the test image
// stays a small static binary.
package envprint
