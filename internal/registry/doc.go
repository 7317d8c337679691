// Package registry lists the backends and the kinds of implementation
// under test the presetsim command knows, by name, the default first
// (Backends, Implementations), and binds them to a command's flags
// (BindFlags: --backend, --implementation and every registration's own
// flags); Resolve makes what the flags chose, so that no command names a
// backend or an implementation kind itself.
//
// It is the command's: a Go program or test chooses its backend and
// implementation with typed constructors (package conformance, or a
// backend's New), and links only those.
package registry
