// Package policy is "presetsim policy": it reads PodPresets from manifests
// and prints, per namespace, the MutatingAdmissionPolicy and binding that
// presets/policy compiles them into, for a cluster admin to kubectl apply;
// and "presetsim policy controller", presets/policy's compiling controller
// as a process of its own (deploy/policy runs it in the cluster), which
// keeps those objects written as the presets change.
package policy
