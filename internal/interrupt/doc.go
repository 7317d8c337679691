// Package interrupt is how the presetsim command, and the tests that start
// control planes, handle SIGINT and SIGTERM: a signal cancels the start-up,
// or stops what was started and exits the process with 130 or 143.
//
// It acts on the whole process (it catches signals and exits), so only
// programs and tests use it; library packages (harness, steps, presets)
// never do: they stop when their context is cancelled or Stop is called.
package interrupt
