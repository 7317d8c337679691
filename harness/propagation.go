package harness

import (
	"slices"
	"sync"
	"time"
)

// propagation is what a run measured of the implementation's propagation
// lag (R6.1): how long each preset took, from its creation, to be shown by
// the implementation.
type propagation struct {
	mu   sync.Mutex
	lags []time.Duration
}

// maxLags bounds the lags a run keeps (a long run keeps the first ones).
const maxLags = 100000

// NotePropagation records how long the implementation took to show a
// preset once it was created (R6.1). Safe for concurrent use.
func (w *World) NotePropagation(d time.Duration) {
	w.lags.mu.Lock()
	defer w.lags.mu.Unlock()
	if len(w.lags.lags) < maxLags {
		w.lags.lags = append(w.lags.lags, d)
	}
}

// Propagation is what the run recorded (NotePropagation): how many
// presets, the median lag and the longest; zeros when none.
func (w *World) Propagation() (n int, median, longest time.Duration) {
	w.lags.mu.Lock()
	lags := slices.Clone(w.lags.lags)
	w.lags.mu.Unlock()
	if len(lags) == 0 {
		return 0, 0, 0
	}
	slices.Sort(lags)
	return len(lags), lags[len(lags)/2], lags[len(lags)-1]
}
