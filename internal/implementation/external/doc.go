// Package external tests someone else's admission webhook: it installs the
// preset CRD, optionally starts the webhook's process (Options.Command,
// with a kubeconfig for it; stopped, with its process group, at Stop),
// registers the webhook by URL, and keeps the process's output for failure
// messages (implementation.Process). What it keeps is bounded whatever the
// process prints (internal/tailbuf, output.go): its last lines in memory,
// each cut, and a log file cut at a limit with a note. ParseCommand splits
// a command line as a shell would, for the CLI's --webhook-command.
package external
