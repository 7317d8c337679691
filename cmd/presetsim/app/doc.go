// Package app is the presetsim command line: flag parsing and output only;
// the work is done by packages harness and steps. Each command is a cobra
// command; bench and serve are packages of their own, and cli holds what
// the commands share (exit statuses, usage errors, Prepare).
package app
