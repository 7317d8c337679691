// Package eventcheck holds the checks on events of the step API: an object
// has an event (waited for), or has no event with a reason for the settle
// window. Events lists an object's events for other checks.
package eventcheck
