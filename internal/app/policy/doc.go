// Package policy is "presetsim policy": it reads PodPresets from manifests
// and prints, per namespace, the MutatingAdmissionPolicy and binding that
// presets/policy compiles them into, for a cluster admin to kubectl apply.
package policy
