// Package cli holds what every presetsim command shares: the exit status
// carried as an error (ExitError, which only the program's main turns into
// an exit), usage errors with a pointer to --help, argument checks,
// Prepare, the start of every command that runs a control plane (signals
// caught, binaries found or built as an explicit, announced step), and
// Connect, the clients of a command that talks to a cluster.
package cli
