// Package live holds the commands that read a live cluster and never write
// to it: "presetsim audit" (drift between running pods and the presets of
// their namespace, package internal/audit) and "presetsim explain pod" (what
// each preset does to a pod and why, package internal/explain, with what the
// pod's annotations record of its admission).
package live
