package scenario

import (
	"errors"
	"fmt"
	"strings"

	"presetsim.dev/presetsim/harness/backend"
)

// ErrAccepted is the failure of a request that should have been rejected.
var ErrAccepted = errors.New("the request succeeded, want it rejected")

// Succeeded checks the last request was not rejected.
func (s *Scenario) Succeeded() error {
	a, err := s.lastAttempt()
	if err != nil {
		return err
	}
	if a.Err != nil {
		return fmt.Errorf("the request was rejected: %v", a.Err)
	}
	if a.NotTakenUp != nil {
		return fmt.Errorf("the request succeeded, but the implementation never took the preset up: %w", a.NotTakenUp)
	}
	return nil
}

// Rejected checks the last request was rejected with a message containing
// text (in the profile's field paths). On a backend that does not validate,
// a request that succeeded is unsupported, not failed.
func (s *Scenario) Rejected(text string) error {
	text = s.World().Profile.Message(text)
	a, err := s.lastAttempt()
	if err != nil {
		return err
	}
	if a.Err == nil {
		if a.Unvalidated {
			reason := "the request succeeded, but this backend does not run the API server's validation (CRD schemas, pod validation), so it cannot tell whether an API server would reject it"
			if a.NotTakenUp != nil {
				reason += fmt.Sprintf(" (the implementation did not take it up: %v)", a.NotTakenUp)
			}
			return &backend.UnsupportedError{Backend: a.Backend, Reason: reason}
		}
		if a.NotTakenUp != nil {
			return fmt.Errorf("%w (and the implementation never took the preset up: %v)", ErrAccepted, a.NotTakenUp)
		}
		return ErrAccepted
	}
	if !strings.Contains(a.Err.Error(), text) {
		return fmt.Errorf("the request was rejected, but the message does not contain %q:\n%v", text, a.Err)
	}
	return nil
}

// Warned checks the last request got a warning containing text.
func (s *Scenario) Warned(text string) error {
	a, err := s.lastAttempt()
	if err != nil {
		return err
	}
	for _, w := range a.Warnings {
		if strings.Contains(w, text) {
			return nil
		}
	}
	return fmt.Errorf("no warning contains %q; warnings: %q", text, a.Warnings)
}

// NotWarned checks the last request got no admission warning: a request
// without a conflict gets none (R4.3 warns of conflicts, and of nothing
// else).
func (s *Scenario) NotWarned() error {
	a, err := s.lastAttempt()
	if err != nil {
		return err
	}
	if len(a.Warnings) > 0 {
		return fmt.Errorf("the request got warnings, though nothing conflicts: %q", a.Warnings)
	}
	return nil
}
