// Package watch is "presetsim run --watch": the control plane and the
// implementation stay up, the scenarios of a feature file run again when
// the file is saved (every feature on "r" and Enter), and only what changed
// since the last run is printed. Files are polled, not watched with inotify:
// a stat every 100ms of a few feature files costs nothing, and works on
// every file system an editor saves to.
package watch
