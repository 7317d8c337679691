// Package presetsim holds what the presetsim binary carries with it: the
// curated feature suite (features/), so that `presetsim run` with no path
// runs the suite of the binary's own version from any directory, and
// `presetsim features export` writes it out.
package presetsim
