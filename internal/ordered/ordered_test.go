package ordered

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// TestMap: results come in the items' order whatever the workers'
// timing; at most Window are computed ahead of the reader; a reader that
// stops early leaves no goroutine behind.
func TestMap(t *testing.T) {
	items := make([]int, 3000)
	for i := range items {
		items[i] = i
	}
	tests := []struct {
		name    string
		workers int
		stopAt  int // the reader stops after this many; 0: reads them all
	}{
		{name: "one worker", workers: 1},
		{name: "four workers", workers: 4},
		{name: "more workers than items", workers: 5000},
		{name: "a reader that stops early", workers: 4, stopAt: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			var computed, read atomic.Int64
			var got []int
			for v := range Map(items, tt.workers, func(i int) int {
				if i%7 == 0 {
					time.Sleep(time.Duration(i%5) * 10 * time.Microsecond) // out of order
				}
				if ahead := computed.Add(1) - read.Load(); ahead > Window+int64(tt.workers)+1 {
					t.Errorf("%d items computed ahead of the reader, more than the window", ahead)
				}
				return i * 2
			}) {
				read.Add(1)
				got = append(got, v)
				if tt.stopAt > 0 && len(got) == tt.stopAt {
					break
				}
			}
			want := make([]int, 0, len(items))
			for _, i := range items {
				want = append(want, i*2)
			}
			if tt.stopAt > 0 {
				want = want[:tt.stopAt]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %d results, not the items' doubles in order", len(got))
			}
			deadline := time.Now().Add(5 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines after Map returned, %d before", n, before)
			}
		})
	}
}
