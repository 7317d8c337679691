// Package pathlock claims a file path for one process at a time, so that
// two `presetsim up` never write, and never delete, the same kubeconfig.
//
// A claim is an exclusive flock(2) on PATH.lock, which holds the owner's
// pid for the message another claimant gets. The kernel drops the lock
// when its owner exits, however it ends (SIGKILL included), so a claim
// never outlives its process; a lock file a killed owner left is taken
// over by the next claimant.
package pathlock
