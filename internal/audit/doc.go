// Package audit finds drift in a live cluster where some PodPreset
// implementation runs: for every pod a workload owns, what the presets of
// its namespace would make of its owner's pod template now (the reference
// merge, read through a profile's preset kind and annotations), against the
// presets the pod carries: presets it is missing, carries at an older
// resourceVersion, carries though they were deleted or no longer select it,
// and conflicts that keep every preset from its workload's new pods. It only
// gets, lists and watches; the command that would fix each workload is in
// the report, for a person to run.
package audit
