// Package serve is "presetsim serve": an in-process module (the reference by
// default) served as a standalone HTTPS admission webhook, with a serving
// certificate it makes itself when none is given, until the command is
// interrupted or the listener fails.
package serve
