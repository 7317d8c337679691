// Package module runs in-process admission modules the way the API server
// runs its admission plug-ins: a Registry holds their factories in an
// admission.Plugins, and Start makes one with Plugins.InitPlugin,
// initialised by k8s.io/apiserver's own PluginInitializer (clients, a stop
// channel) and this package's (the PodPreset lister of an informer over
// every namespace, an event recorder, the lister's sync as the plug-in's
// ReadyFunc). The reference PodPreset plug-in of presets/admission is
// registered as Reference; the mutants and the example implementation
// register beside it. Implementation makes one the implementation under
// test, served as a webhook to an API server or called in-process by the
// offline backend.
package module
