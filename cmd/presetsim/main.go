// Command presetsim runs the PodPreset feature suite against an admission
// module on a real control plane.
package main

import "presetsim.dev/presetsim/cmd/presetsim/app"

func main() { app.Main() }
