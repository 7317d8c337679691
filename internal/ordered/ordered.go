package ordered

import (
	"iter"
	"sync"
)

// Window is how many items Map computes ahead of its reader at most.
const Window = 256

// Map yields f of each item, in the items' order, computing up to workers
// of them at once (on the caller's goroutine, one at a time, when workers
// is less than 2), at most Window ahead of the reader. A reader that stops
// early stops the workers; Map returns once they are done. f must not
// panic: a panic on a worker ends the process, as any goroutine's does, so
// f recovers what it must.
func Map[In, Out any](items []In, workers int, f func(In) Out) iter.Seq[Out] {
	return func(yield func(Out) bool) {
		if workers < 2 || len(items) < 2 {
			for _, it := range items {
				if !yield(f(it)) {
					return
				}
			}
			return
		}
		type job struct {
			item In
			out  chan Out
		}
		jobs, order, stop := make(chan job), make(chan chan Out, Window), make(chan struct{})
		var wg sync.WaitGroup
		for range min(workers, len(items)) {
			wg.Go(func() {
				for j := range jobs {
					j.out <- f(j.item)
				}
			})
		}
		wg.Go(func() {
			defer close(jobs)
			defer close(order)
			for _, it := range items {
				out := make(chan Out, 1)
				select {
				case order <- out:
				case <-stop:
					return
				}
				select {
				case jobs <- job{it, out}:
				case <-stop:
					return
				}
			}
		})
		defer func() {
			close(stop)
			for range order { // until the sender has stopped
			}
			wg.Wait()
		}()
		for out := range order {
			if !yield(<-out) {
				return
			}
		}
	}
}
