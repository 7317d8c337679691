// Package profile reads profiles: versioned YAML files that describe how an
// implementation differs from the canonical PodPreset, so that the same
// feature files check it fairly.
//
//	apiVersion: presetsim.dev/v1alpha1
//	kind: Profile
//	metadata:
//	  name: example
//	spec:
//	  implementation: Example PodInjection webhook
//	  version: "1.2.0"
//	  crd: crd.yaml                 # installed instead of the canonical CRD (relative to this file)
//	  preset:
//	    apiVersion: presets.example.com/v1alpha1
//	    kind: PodInjection
//	    fields:                     # canonical field → the implementation's, dotted
//	      spec.selector: spec.podSelector
//	  annotations:
//	    applied: presets.example.com/applied-{name}
//	    exclude: presets.example.com/skip
//	  claims: [events, warnings, initContainers]
//	  warning: "example: {message}" # the form of a conflict warning; {namespace} too
//	  probe: compiled               # presetsim's policies say what they were compiled from
//
// Every field but metadata.name is optional; an empty profile is the
// canonical implementation claiming every capability. The harness
// translates what feature files write in canonical terms: PodPresets into
// the implementation's kind and fields, the podpreset-<name> and exclude
// annotation keys into the implementation's, and expected rejection
// messages have their canonical field paths mapped. The behaviour settings
// and the unclaimed content capabilities are options of the model
// (Options): verdicts are computed from the model under them, so a
// declaration is checked, never trusted. A scenario tagged @rollout that the
// profile does not claim is not run; an unclaimed events or warnings
// capability stops only the checks that need it.
package profile
