// Package app is the presetsim command line: flag parsing and output only;
// the work is done by packages harness and steps.
package app
