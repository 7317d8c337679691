package offline

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
)

// watches shares one tracker watch per resource and namespace among the
// callers of Cluster.Watch. The fake object tracker keeps every watcher it
// ever made, stopped ones too, so a watch per wait (presetsim fuzz waits
// for events in every case) made memory grow with every case; here a
// namespace costs one watcher however often it is watched, and a caller's
// Stop really ends its watch.
type watches struct {
	mu    sync.Mutex
	feeds map[watchKey]*feed
}

type watchKey struct {
	gvr       schema.GroupVersionResource
	namespace string
}

// feed is one tracker watch and the watches it serves.
type feed struct {
	src  watch.Interface
	mu   sync.Mutex
	subs map[*subscriber]bool
	// read counts the events taken from the tracker's watch (pace).
	read atomic.Int64
}

// subscriberBuffer is how many events a watch holds for a caller that does
// not read them; past that, its watch ends (its channel is closed), as an
// API server ends a watch that falls behind.
const subscriberBuffer = 256

// subscriber is one caller's watch.
type subscriber struct {
	f      *feed
	ch     chan watch.Event
	closed bool // guarded by f.mu
}

func (s *subscriber) ResultChan() <-chan watch.Event { return s.ch }

// Stop ends the watch; it may be called more than once.
func (s *subscriber) Stop() {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.closeLocked()
}

func (s *subscriber) closeLocked() {
	if !s.closed {
		s.closed = true
		delete(s.f.subs, s)
		close(s.ch)
	}
}

// watch returns a new watch of the resource in the namespace, sharing the
// tracker's watch with every other one.
func (w *watches) watch(t clienttesting.ObjectTracker, gvr schema.GroupVersionResource, namespace string) (watch.Interface, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := watchKey{gvr, namespace}
	f := w.feeds[key]
	if f == nil {
		src, err := t.Watch(gvr, namespace)
		if err != nil {
			return nil, err
		}
		f = &feed{src: src, subs: map[*subscriber]bool{}}
		if w.feeds == nil {
			w.feeds = map[watchKey]*feed{}
		}
		w.feeds[key] = f
		go f.run()
	}
	s := &subscriber{f: f, ch: make(chan watch.Event, subscriberBuffer)}
	f.mu.Lock()
	f.subs[s] = true
	f.mu.Unlock()
	return s, nil
}

// run hands every event of the tracker's watch to the watches of the
// moment, until the tracker's watch is stopped; then it ends them.
func (f *feed) run() {
	for ev := range f.src.ResultChan() {
		f.read.Add(1)
		f.mu.Lock()
		for s := range f.subs {
			select {
			case s.ch <- ev:
			default:
				s.closeLocked() // fell behind: its watch ends
			}
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	for s := range f.subs {
		s.closeLocked()
	}
	f.mu.Unlock()
}

// forget stops the feeds of a namespace (deleted: nothing will happen in
// it any more), ending their watches.
func (w *watches) forget(namespace string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for key, f := range w.feeds {
		if key.namespace == namespace {
			f.src.Stop()
			delete(w.feeds, key)
		}
	}
}

// paceBatch is how many changes a bulk deletion makes before it lets the
// feed catch up: the tracker hands each change to its watch through a
// channel of 100, and panics when it is full.
const paceBatch = 32

// pace returns what a bulk change of a resource in a namespace calls before
// each change: every paceBatch changes, it waits (up to a second) until
// the feed has read them, so that a feed not scheduled meanwhile (two
// cores, many goroutines) never lets the tracker's channel fill. Without a
// feed it does nothing.
func (w *watches) pace(gvr schema.GroupVersionResource, namespace string) func() {
	w.mu.Lock()
	f := w.feeds[watchKey{gvr, namespace}]
	w.mu.Unlock()
	if f == nil {
		return func() {}
	}
	start, n := f.read.Load(), int64(0)
	return func() {
		if n > 0 && n%paceBatch == 0 {
			deadline := time.Now().Add(time.Second)
			for f.read.Load() < start+n && time.Now().Before(deadline) {
				time.Sleep(50 * time.Microsecond)
			}
		}
		n++
	}
}
