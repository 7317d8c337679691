// Package tailbuf keeps the last lines a child process printed, in
// bounded memory whatever it prints: for the error that names why it
// failed (an external webhook's, a compared tool's in presetsim bench).
package tailbuf
