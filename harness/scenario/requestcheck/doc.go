// Package requestcheck holds the step API's checks on the outcome of the
// last "try" step: it succeeded, was rejected with a message, or got
// (or did not get) an admission warning.
package requestcheck
