package backend

import (
	"errors"
	"fmt"
)

// UnsupportedError says a step cannot be honoured on a backend, and why. A
// step that returns it is reported as unsupported, never as passed.
type UnsupportedError struct {
	Backend string
	Reason  string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("unsupported on the %s backend: %s", e.Backend, e.Reason)
}

// IsUnsupported reports whether err is (or wraps) an UnsupportedError, and
// returns it.
func IsUnsupported(err error) (*UnsupportedError, bool) {
	var u *UnsupportedError
	ok := errors.As(err, &u)
	return u, ok
}
