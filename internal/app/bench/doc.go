// Package bench is "presetsim bench": it measures, in one run on one control
// plane, the figures of docs/performance.md that a user feels (start-up,
// time per scenario and where it goes step by step, the suite's time, a pod
// create's latency with and without the webhook and its presets, the merge
// rate, offline speed) and prints them as a table.
package bench
