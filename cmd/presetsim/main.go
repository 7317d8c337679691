// Command presetsim is the PodPreset reference implementation's command
// line: it runs the conformance suite (the one built in, or feature files)
// and generated cases (fuzz) against the reference, a mutant, a webhook or
// a cluster, on a real control plane or offline; previews what presets do
// (apply, explain, audit); and runs a local cluster with presets (up).
// `presetsim --help` lists every command; package app has them.
package main

import (
	"io"
	"os"
	"runtime/debug"
	"time"

	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/klog/v2"

	"presetsim.dev/presetsim/internal/app"
)

func main() {
	// A run allocates much short-lived garbage (objects converted between
	// their Go types and unstructured form, per request) over a small
	// live heap, so the collector runs at GOGC=200 unless the environment
	// says otherwise: measured on `presetsim fuzz --backend offline`, 17 %
	// less CPU a case for about 1.5 times the peak memory
	// (docs/performance.md).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	// The API server's admission-policy plug-ins, which the offline
	// backend runs in-process (package policyplugin), log their progress
	// through klog at info level; only klog's errors reach stderr.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	// They compile what changed among the policies once a second, as in
	// an API server; in-process, where a preset's policy is written in
	// microseconds, that second would be most of a scenario. The interval
	// is when a written policy takes effect, not what it does.
	generic.SetPolicyRefreshIntervalForTests(10 * time.Millisecond)
	app.Main()
}
