package harness

import (
	"testing"
	"time"
)

// TestPropagation: the lags noted come back as their count, median and
// longest; none noted, zeros.
func TestPropagation(t *testing.T) {
	w := &World{}
	if n, median, longest := w.Propagation(); n != 0 || median != 0 || longest != 0 {
		t.Errorf("no lag noted: %d, %s, %s; want zeros", n, median, longest)
	}
	for _, ms := range []int{30, 10, 20} {
		w.NotePropagation(time.Duration(ms) * time.Millisecond)
	}
	if n, median, longest := w.Propagation(); n != 3 || median != 20*time.Millisecond || longest != 30*time.Millisecond {
		t.Errorf("Propagation() = %d, %s, %s; want 3, 20ms, 30ms", n, median, longest)
	}
}
