// Package module runs in-process admission modules: the reference
// PodPreset plug-in of presets/admission (with an informer-backed lister,
// an event recorder and the opt-in rollout controller) and any module built
// from its parts (the mutants). A Registry names them; Implementation makes
// one the implementation under test, served as a webhook to an API server
// or called in-process by the offline backend.
package module
